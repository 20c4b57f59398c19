package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestReportDataIsClean: the page's data carries no control, bidi or
// invisible formatting characters from a manifest, which textContent would
// still render (a right-to-left override repaints a host name).
func TestReportDataIsClean(t *testing.T) {
	out := t.TempDir()
	hostile := "x\u202egnp.exe\x1b[2J\u200b"
	man := sample("pkg"+hostile, "1.0.0"+hostile)
	man.Phases = append(man.Phases, m.Phase{Name: "call:" + hostile,
		Network: []m.Connection{{Proto: "tcp", Op: "connect", Name: "h" + hostile + ".example", Port: 443, Category: "egress"}}})
	fs := []policy.Finding{{Severity: policy.High, Kind: policy.KindHost, Phase: "call:" + hostile, Subject: hostile, Summary: "s" + hostile, Evidence: "e" + hostile}}
	writeDone(t, out, "srv"+hostile, man, fs)
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u202e", "\x1b", "\u200b"} {
		if strings.Contains(string(page), bad) {
			t.Errorf("report.html carries %q", bad)
		}
	}
}

// harmFixture is the batch: six passing servers whose only
// "canary" is the medium read of the decoy .env (dotenv at startup),
// named to sort first, and one failing with five high findings.
func harmFixture() []entry {
	var es []entry
	dotenv := policy.Finding{Severity: policy.Medium, Kind: policy.KindCanary, Phase: m.PhaseStartup, Subject: "file:<workspace>/.env file-read",
		Summary: "read the .env file of its working directory (dotenv does this at startup)", Evidence: "<workspace>/.env"}
	for i := range 6 {
		es = append(es, entry{Record: Record{Server: fmt.Sprintf("a-dotenv-%d", i), Status: StatusDone, Outcome: m.StatusOK, Verdict: m.VerdictPass,
			Findings: []policy.Finding{dotenv}}, man: sample("a", "1")})
	}
	var high []policy.Finding
	for i := range 5 {
		high = append(high, policy.Finding{Severity: policy.High, Kind: policy.KindHost, Phase: m.PhaseStartup, Subject: fmt.Sprintf("h%d.example", i),
			Summary: "looked up host during a call", Evidence: "resolved through the sandbox's DNS"})
	}
	return append(es, entry{Record: Record{Server: "z-five-high", Status: StatusDone, Outcome: m.StatusOK, Verdict: m.VerdictFail, Findings: high},
		man: sample("z", "1")})
}

// TestMatrixHarmFirst: the failing server sits above the passing ones,
// and the canary tile counts real canary findings, not the dotenv read.
func TestMatrixHarmFirst(t *testing.T) {
	es := harmFixture()
	var views []*serverView
	for _, e := range es {
		views = append(views, serverOf(e, nil))
	}
	slices.SortStableFunc(views, harm)
	if views[0].Server != "z-five-high" {
		t.Errorf("first row %s, want z-five-high (fail, 5 high) above six passing dotenv reads", views[0].Server)
	}
	for _, tile := range tiles(es) {
		if tile.Label == "touch a planted canary" && tile.N != 0 {
			t.Errorf("%d servers touch a planted canary, want 0: a dotenv read is no canary theft", tile.N)
		}
	}
	es[0].Findings = append(es[0].Findings, policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Subject: "file:~/.npmrc file-read"})
	for _, tile := range tiles(es) {
		if tile.Label == "touch a planted canary" && tile.N != 1 {
			t.Errorf("%d servers touch a planted canary, want 1 (the decoy read)", tile.N)
		}
	}
}
