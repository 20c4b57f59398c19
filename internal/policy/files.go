package policy

import (
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// fileFindings report file accesses by category, and writes into places
// another program loads code from (loadplaces.go); allowed paths are
// skipped.
func fileFindings(pe *phaseEval) []Finding {
	var out []Finding
	for _, f := range pe.phase.Files {
		if pe.pol.Allow.path(f.Path) {
			continue
		}
		if fd, ok := pe.loadFinding(f); ok {
			out = append(out, fd)
			continue
		}
		if fd, ok := fileFinding(pe.phase.Name, f); ok {
			out = append(out, fd)
		}
	}
	return out
}

// loadFinding judges a write into the home or the workspace by what the
// place is: one another program loads or runs code from later is high
// persistence, unless it is the server's own data directory or the call
// named the path (the caller asked for that file).
func (pe *phaseEval) loadFinding(f m.FileAccess) (Finding, bool) {
	// A module the project or the home would load is "runtime" to the
	// classifier (node's module lookup walks those paths); a write there
	// is judged by the place too.
	moduleDir := f.Category == m.CatRuntime && (strings.HasPrefix(f.Path, "<workspace>/") || strings.HasPrefix(f.Path, "~/"))
	if f.Category != m.CatHome && f.Category != m.CatWorkspace && !moduleDir || f.Result != m.ResultOK && f.Result != m.ResultDenied {
		return Finding{}, false
	}
	switch f.Access {
	case m.AccessWrite, m.AccessCreate, m.AccessSymlink, m.AccessDirWrite:
	default:
		return Finding{}, false // removing a file from such a place adds nothing that runs
	}
	why := loadPlace(f.Path, pe.phase.Name == m.PhaseInstall)
	if why == "" || ownData(pe.own, f.Path) || pe.namedByCall(f.Path) || classify.InertHookSample(f.Path) {
		return Finding{}, false
	}
	ev := fmt.Sprintf("%s %s (%s)", f.Access, f.Path, f.Result)
	if f.Target != "" {
		ev += " -> " + f.Target
	}
	return Finding{Severity: High, Kind: KindPersistence, Phase: pe.phase.Name, Subject: f.Path,
		Summary: "wrote into " + why + ": another program loads or runs it later", Evidence: ev}, true
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
		// A write where another program loads code is judged by the place
		// (loadFinding); any other is an observation.
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
