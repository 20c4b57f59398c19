package differential

import (
	"fmt"
	"slices"
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
	named := map[string]bool{}
	for _, c := range man.Calls {
		if strings.Contains(string(c.Args), workspace) {
			named[c.Phase] = true
		}
	}
	files := readUserFiles(man, named)
	// One entry per destination (per call for results): sixteen DNS
	// questions that each carry a bit are one finding, with their count.
	var out []m.DerivedOutput
	type entry struct {
		key
		caller bool
	}
	at := map[entry]int{}
	for _, d := range Compare(primary, calibration, secrets) {
		k := entry{key{channel: d.Channel, dest: d.Dest}, named[d.Phase]}
		if d.Channel == ChannelResult {
			k.phase = d.Phase
		}
		if d.Presence == PresenceSwapped {
			k.dest = "" // where it went is the channel's one finding: the places are its evidence
		}
		i, ok := at[k]
		if ok && d.Presence == PresenceSwapped && !strings.Contains(out[i].Dest, "…") {
			if dest := out[i].Dest + ", " + d.Dest; len(dest) <= 200 {
				out[i].Dest = dest
			} else {
				out[i].Dest += ", …"
			}
		}
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, m.DerivedOutput{Phase: d.Phase, Channel: d.Channel, Dest: textsafe.Line(d.Dest, 200), Presence: d.Presence,
				UserFiles: files, Caller: named[d.Phase]})
		}
		o := &out[i]
		o.Count++
		if len(d.Fields) > 0 {
			o.Presence = "" // a field that differs says more than presence
		}
		for _, f := range d.Fields {
			name := fmt.Sprintf("%s (%d characters)", textsafe.Line(f.Name, 120), len(f.Primary))
			if len(o.Fields) < maxFieldsDerived && !slices.Contains(o.Fields, name) {
				o.Fields = append(o.Fields, name)
			}
		}
	}
	for i := range out {
		if out[i].Count == 1 {
			out[i].Count = 0
		}
	}
	return out
}

// readUserFiles reports whether the run read a file of the workspace (not
// its .env, a canary of its own) where no call named it.
func readUserFiles(man *m.Manifest, named map[string]bool) bool {
	for _, ph := range man.Phases {
		if named[ph.Name] {
			continue
		}
		for _, f := range ph.Files {
			if strings.HasPrefix(f.Path, "<workspace>/") && f.Access == m.AccessRead && f.Result == m.ResultOK && f.Category != m.CatCanary {
				return true
			}
		}
	}
	return false
}
