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
			return Finding{Severity: Low, Kind: KindSensitive, Phase: phase, Subject: subject, Summary: "checked whether a credential file exists (a probe: its content was not read)", Evidence: ev}, true
		}
		return Finding{}, false // reads and writes of canaries are canary findings
	case m.CatShellRC:
		if w {
			return Finding{Severity: Critical, Kind: KindPersistence, Phase: phase, Subject: subject, Summary: "modified a shell startup or autostart file", Evidence: ev}, true
		}
		return Finding{Severity: Low, Kind: KindSystemFile, Phase: phase, Subject: subject, Summary: "read a shell startup file", Evidence: ev}, true
	case m.CatAIConfig:
		if w {
			return Finding{Severity: Critical, Kind: KindAIConfig, Phase: phase, Subject: subject, Summary: "modified AI client configuration", Evidence: ev}, true
		}
		if probe(f) {
			return Finding{Severity: Low, Kind: KindAIConfig, Phase: phase, Subject: subject, Summary: "looked for AI client configuration (a probe: " + probeWhat(f) + ")", Evidence: ev}, true
		}
		return Finding{Severity: High, Kind: KindAIConfig, Phase: phase, Subject: subject, Summary: "read AI client configuration", Evidence: ev}, true
	case m.CatSensitive:
		switch {
		case w:
			return Finding{Severity: Critical, Kind: KindSensitive, Phase: phase, Subject: subject, Summary: "modified a credential or private file", Evidence: ev}, true
		case f.Result == m.ResultOK && f.Access == m.AccessRead:
			return Finding{Severity: High, Kind: KindSensitive, Phase: phase, Subject: subject, Summary: "read a credential or private file", Evidence: ev}, true
		case probe(f):
			return Finding{Severity: Low, Kind: KindSensitive, Phase: phase, Subject: subject, Summary: "looked for a credential or private file (a probe: " + probeWhat(f) + ")", Evidence: ev}, true
		default:
			return Finding{Severity: Medium, Kind: KindSensitive, Phase: phase, Subject: subject, Summary: "tried to read a credential or private file (" + f.Result + ")", Evidence: ev}, true
		}
	case m.CatAntiAnalysis:
		return Finding{Severity: Medium, Kind: KindAntiAnalysis, Phase: phase, Subject: subject, Summary: "read a file that reveals tracing or a container", Evidence: ev}, true
	case m.CatSystem:
		if w {
			return Finding{Severity: Medium, Kind: KindWrite, Phase: phase, Subject: subject, Summary: "tried to modify a system file", Evidence: ev}, true
		}
		if f.Result == m.ResultOK {
			return Finding{Severity: Low, Kind: KindSystemFile, Phase: phase, Subject: subject, Summary: "read a system file", Evidence: ev}, true
		}
	case m.CatHome, m.CatOther:
		if w && f.Category == m.CatHome && isDotfile(f.Path) {
			// Programs read their configuration from dotfiles: one not in
			// the persistence table may still change what runs later.
			return Finding{Severity: Medium, Kind: KindWrite, Phase: phase, Subject: subject, Summary: "wrote a dotfile in the home directory", Evidence: ev}, true
		}
		if w {
			return Finding{Severity: Low, Kind: KindWrite, Phase: phase, Subject: subject, Summary: "wrote outside its package and temp", Evidence: ev}, true
		}
		if f.Result == m.ResultOK && f.Category == m.CatHome {
			return Finding{Severity: Low, Kind: KindSystemFile, Phase: phase, Subject: subject, Summary: "read a file in the home directory", Evidence: ev}, true
		}
	case m.CatOwnPackage, m.CatRuntime:
		if w {
			return Finding{Severity: Low, Kind: KindWrite, Phase: phase, Subject: subject, Summary: "tried to modify installed code", Evidence: ev}, true
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

// probe reports an existence check rather than a read: a stat, or an
// open of a file that is not there. Reading content is what the high and
// critical rules are for.
func probe(f m.FileAccess) bool {
	return !isWrite(f.Access) && (f.Access == m.AccessStat || f.Result == m.ResultMissing)
}

func probeWhat(f m.FileAccess) string {
	if f.Result == m.ResultMissing {
		return "it does not exist, nothing was read"
	}
	return "it exists, its content was not read"
}
