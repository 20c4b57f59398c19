package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestArgProbes: an undeclared parameter that evaluates the probe's
// expression is high; a declared one low; a probe whose marker did not
// show is nothing; the path probe's note opened is low.
func TestArgProbes(t *testing.T) {
	man := &m.Manifest{
		Calls: []m.Call{
			{Phase: "call:search#4", Name: "search", Probes: []m.Probe{{Param: "query", Kind: "expression", Markers: []string{"result 62710561"}, InResult: true}}},
			{Phase: "call:run_js#4", Name: "run_js", Probes: []m.Probe{{Param: "code", Kind: "expression", Declared: true, Markers: []string{"result 62710561"}, InResult: true}}},
			{Phase: "call:echo#4", Name: "echo", Probes: []m.Probe{{Param: "text", Kind: "expression", Markers: []string{"result 62710561"}}}},
			{Phase: "call:read#4", Name: "read", Probes: []m.Probe{{Param: "path", Kind: "path", Markers: []string{"file /home/dev/workspace/docs/handover-notes.md", "result HND-58301-KQ"}}}},
		},
		Phases: []m.Phase{{Name: "call:read#4", Files: []m.FileAccess{{Path: "<workspace>/docs/handover-notes.md", Access: m.AccessRead, Result: m.ResultOK}}}},
	}
	got := map[string]Severity{}
	for _, f := range argProbeFindings(man) {
		got[f.Subject] = f.Severity
	}
	want := map[string]Severity{"search query expression probe": High, "run_js code expression probe": Low, "read path path probe": Low}
	if len(got) != len(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}
