package schedule

import (
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Probes are a set's marker probes in the manifest's form. Their values
// are the probe's own (a product, the marker note, a made-up host),
// never a secret.
func Probes(set argsynth.Set) []m.Probe {
	var out []m.Probe
	for _, p := range set.Probes {
		mp := m.Probe{Param: textsafe.Text(p.Param, 128), Kind: string(p.Kind), Declared: p.Declared}
		for _, mk := range p.Markers {
			mp.Markers = append(mp.Markers, string(mk.Where)+" "+textsafe.Text(mk.Value, 256))
		}
		out = append(out, mp)
	}
	return out
}

// MarkProbes records which probes' result markers the call's result
// carries (the file and lookup markers are in the call's phase).
func MarkProbes(probes []m.Probe, result []byte) {
	for i, p := range probes {
		for _, mk := range p.Markers {
			if v, ok := strings.CutPrefix(mk, string(argsynth.InResult)+" "); ok && v != "" && strings.Contains(string(result), v) {
				probes[i].InResult = true
			}
		}
	}
}
