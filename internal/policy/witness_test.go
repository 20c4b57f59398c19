package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestWitnessOwnData: a home file only the witness run changed is
// critical anti-analysis, unless it lies in the server's own data
// directory (a browser profile named after the package), which is a
// medium environment difference.
func TestWitnessOwnData(t *testing.T) {
	man := &m.Manifest{Target: m.Target{Name: "@playwright/mcp", Entry: []string{"node", "<pkg>/cli.js"}},
		Server: m.ServerInfo{Name: "Playwright"},
		Witness: []m.WitnessDifference{
			{Subject: "home file ~/.cache/ms-playwright-mcp/mcp-chrome-8c2ba53/Default/Trust Tokens changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.bashrc changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.playwright/config changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.cache/ms-playwright-mcp/extensions/x/main.js changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "host collect.example", Traced: "nothing", Witness: "startup: POST collect.example"},
		}}
	got := map[string]Finding{}
	for _, f := range witnessFindings(man) {
		got[f.Subject] = f
	}
	if f := got["home file ~/.cache/ms-playwright-mcp/mcp-chrome-8c2ba53/Default/Trust Tokens changed"]; f.Severity != Medium || f.Kind != KindEnvironment {
		t.Errorf("own data: %+v", f)
	}
	for _, s := range []string{"home file ~/.bashrc changed", "host collect.example", "home file ~/.playwright/config changed",
		"home file ~/.cache/ms-playwright-mcp/extensions/x/main.js changed"} {
		if f := got[s]; f.Severity != Critical || f.Kind != KindAntiAnalysis {
			t.Errorf("%s: %+v", s, f)
		}
	}
}
