package policy

import (
	"fmt"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// fileFindings report file accesses by category; allowed paths are skipped.
func fileFindings(pe *phaseEval) []Finding {
	var out []Finding
	for _, f := range pe.phase.Files {
		if pe.pol.Allow.path(f.Path) {
			continue
		}
		if fd, ok := fileFinding(pe.phase.Name, f); ok {
			out = append(out, fd)
		}
	}
	return out
}

// isWrite reports whether an access changed the file system.
func isWrite(access string) bool {
	switch access {
	case m.AccessWrite, m.AccessCreate, m.AccessDelete, m.AccessRename, m.AccessSymlink, m.AccessDirWrite:
		return true
	}
	return false
}

// fileFinding judges one file access by its category; reads and writes of
// canaries are left to the canary findings.
func fileFinding(phase string, f m.FileAccess) (Finding, bool) {
	ev := fmt.Sprintf("%s %s (%s)", f.Access, f.Path, f.Result)
	if f.Target != "" {
		ev += " -> " + f.Target
	}
	subject := f.Path
	w := isWrite(f.Access)
	switch f.Category {
	case m.CatCanary:
		if f.Access == m.AccessStat {
			return Finding{Medium, KindSensitive, phase, subject, "checked for a credential file", ev}, true
		}
		return Finding{}, false // reads and writes of canaries are canary findings
	case m.CatShellRC:
		if w {
			return Finding{Critical, KindPersistence, phase, subject, "modified a shell startup or autostart file", ev}, true
		}
		return Finding{Low, KindSystemFile, phase, subject, "read a shell startup file", ev}, true
	case m.CatAIConfig:
		if w {
			return Finding{Critical, KindAIConfig, phase, subject, "modified AI client configuration", ev}, true
		}
		return Finding{High, KindAIConfig, phase, subject, "read AI client configuration", ev}, true
	case m.CatSensitive:
		switch {
		case w:
			return Finding{Critical, KindSensitive, phase, subject, "modified a credential or private file", ev}, true
		case f.Result == m.ResultOK && f.Access == m.AccessRead:
			return Finding{High, KindSensitive, phase, subject, "read a credential or private file", ev}, true
		default:
			return Finding{Medium, KindSensitive, phase, subject, "tried to access a credential or private file", ev}, true
		}
	case m.CatAntiAnalysis:
		return Finding{Medium, KindAntiAnalysis, phase, subject, "read a file that reveals tracing or a container", ev}, true
	case m.CatSystem:
		if w {
			return Finding{Medium, KindWrite, phase, subject, "tried to modify a system file", ev}, true
		}
		if f.Result == m.ResultOK {
			return Finding{Low, KindSystemFile, phase, subject, "read a system file", ev}, true
		}
	case m.CatHome, m.CatOther:
		if w && f.Category == m.CatHome && isDotfile(f.Path) {
			// Programs read their configuration from dotfiles: one not in
			// the persistence table may still change what runs later.
			return Finding{Medium, KindWrite, phase, subject, "wrote a dotfile in the home directory", ev}, true
		}
		if w {
			return Finding{Low, KindWrite, phase, subject, "wrote outside its package and temp", ev}, true
		}
		if f.Result == m.ResultOK && f.Category == m.CatHome {
			return Finding{Low, KindSystemFile, phase, subject, "read a file in the home directory", ev}, true
		}
	case m.CatOwnPackage, m.CatRuntime:
		if w {
			return Finding{Low, KindWrite, phase, subject, "tried to modify installed code", ev}, true
		}
	}
	return Finding{}, false
}

// isDotfile reports whether a normalized home path is a dotfile or lies
// in a dot-directory (~/.foo, ~/.config/bar).
func isDotfile(norm string) bool {
	rest, ok := strings.CutPrefix(norm, "~/")
	return ok && strings.HasPrefix(rest, ".")
}
