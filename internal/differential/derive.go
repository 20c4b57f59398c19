package differential

import (
	"fmt"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Derive is what the primary run of man emitted that follows the planted
// values, for the manifest: its records compared with the calibration
// run's (the same secrets) and the secrets run's (others), values left
// out. The credentials the server was given keep their values in the
// secrets run, so a request signed with one is no difference; the
// workspace files (under workspace) do not, so what a call that named
// them sends or returns follows them, and is marked the caller's.
func Derive(man *m.Manifest, workspace string, primary, calibration, secrets []Record) []m.DerivedOutput {
	files := readUserFiles(man)
	named := map[string]bool{}
	for _, c := range man.Calls {
		if strings.Contains(string(c.Args), workspace) {
			named[c.Phase] = true
		}
	}
	var out []m.DerivedOutput
	for _, d := range Compare(primary, calibration, secrets) {
		o := m.DerivedOutput{Phase: d.Phase, Channel: d.Channel, Dest: textsafe.Line(d.Dest, 200), Presence: d.Presence,
			UserFiles: files, Caller: named[d.Phase]}
		for _, f := range d.Fields {
			o.Fields = append(o.Fields, fmt.Sprintf("%s (%d characters)", textsafe.Line(f.Name, 120), len(f.Primary)))
		}
		out = append(out, o)
	}
	return out
}

// readUserFiles reports whether the run read a file of the workspace (not
// its .env, a canary of its own).
func readUserFiles(man *m.Manifest) bool {
	for _, ph := range man.Phases {
		for _, f := range ph.Files {
			if strings.HasPrefix(f.Path, "<workspace>/") && f.Access == m.AccessRead && f.Result == m.ResultOK && f.Category != m.CatCanary {
				return true
			}
		}
	}
	return false
}
