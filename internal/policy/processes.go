package policy

import (
	"path"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// processFindings report programs the server started, other than itself.
// A shell is worse in a phase with egress: it may be running what was
// fetched.
func processFindings(pe *phaseEval) []Finding {
	var out []Finding
	ph := pe.phase
	egress := slices.ContainsFunc(ph.Network, func(c m.Connection) bool { return c.Category == m.ConnEgress })
	marked := slices.ContainsFunc(ph.Processes, func(p m.Process) bool { return p.Lifecycle })
	for _, p := range ph.Processes {
		if isServerProcess(pe.man, p) || pe.pol.Allow.process(p.Path) {
			continue
		}
		argv := strings.Join(p.Argv, " ")
		if p.Shell && ph.Name == m.PhaseInstall && lifecycleShell(p, marked) {
			out = append(out, Finding{Severity: Low, Kind: KindInstallScript, Phase: ph.Name, Subject: scriptOf(p), Summary: "ran an install script", Evidence: argv})
			continue
		}
		if p.Shell {
			sev := Medium
			if egress {
				sev = High
			}
			out = append(out, Finding{Severity: sev, Kind: KindShell, Phase: ph.Name, Subject: p.Path, Summary: "started a shell", Evidence: argv})
			continue
		}
		out = append(out, Finding{Severity: Low, Kind: KindProcess, Phase: ph.Name, Subject: p.Path, Summary: "started a process", Evidence: argv})
	}
	return out
}

// isServerProcess recognizes the server's own start (the entry command).
func isServerProcess(man *m.Manifest, p m.Process) bool {
	e := man.Target.Entry
	if len(e) == 0 || len(p.Argv) < len(e) {
		return false
	}
	if path.Base(e[0]) != path.Base(p.Path) && path.Base(e[0]) != path.Base(p.Argv[0]) {
		return false
	}
	return slices.Equal(p.Argv[1:len(e)], e[1:])
}

// lifecycleShell reports the shell the package manager started for a
// lifecycle script: known by ancestry (Lifecycle, set by classify), so a
// shell the script starts is judged as any other, whatever its argv. A
// manifest recorded before the mark (none in its install phase) falls
// back to the shape npm gives it, sh -c SCRIPT.
func lifecycleShell(p m.Process, marked bool) bool {
	if marked {
		return p.Lifecycle
	}
	return len(p.Argv) == 3 && p.Argv[1] == "-c"
}

// scriptOf is the script a lifecycle shell runs: the text after -c, or
// the file and arguments it was given.
func scriptOf(p m.Process) string {
	if len(p.Argv) == 3 && p.Argv[1] == "-c" {
		return p.Argv[2]
	}
	if len(p.Argv) > 1 {
		return strings.Join(p.Argv[1:], " ")
	}
	return p.Path
}
