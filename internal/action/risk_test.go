package action

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

// TestPullRequestAddingAcceptedRisk: a pull request whose baseline accepts
// harmful findings as a risk gets a high finding of its own and fails,
// even where the check itself had passed; one without it is untouched.
func TestPullRequestAddingAcceptedRisk(t *testing.T) {
	risky, err := m.Encode(&m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "w", Version: "1.1.0"}, Outcome: m.Outcome{Status: m.StatusOK},
		AcceptedRisk: &m.AcceptedRisk{Reason: "reads AWS by design", At: "2026-11-30T00:00:00Z", Findings: []string{"critical canary file:~/.aws/credentials: read"}}})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := m.Encode(&m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "v", Version: "2.0.0"}, Outcome: m.Outcome{Status: m.StatusOK}})
	cfgText := "servers:\n  weather:\n    target: npm:w\n  other:\n    target: npm:v\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfgText},
		map[string]string{"baselines/npm/w/1.1.0.json": string(risky), "baselines/npm/v/2.0.0.json": string(plain)})
	first := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	found := acceptedRiskBaselines(ws, first, mustLoad(t, filepath.Join(ws, "mcp-audit.yml")))
	if len(found) != 1 || found[0].server != "weather" || found[0].risk.Reason != "reads AWS by design" {
		t.Fatalf("found %+v", found)
	}
	pass := func(server string) report.DiffReport {
		return report.DiffReport{Server: server, Baseline: true, Result: &diff.Result{Verdict: m.VerdictPass}}
	}
	got := flagAcceptedRisk([]report.DiffReport{pass("weather"), pass("other")}, found)
	if got[0].Result.Verdict != m.VerdictFail || len(got[0].Result.Findings) != 1 || got[0].Result.Findings[0].Kind != KindAcceptedRisk {
		t.Errorf("weather: %+v", got[0].Result)
	}
	if got[1].Result.Verdict != m.VerdictPass || len(got[1].Result.Findings) != 0 {
		t.Errorf("other: %+v", got[1].Result)
	}
}
