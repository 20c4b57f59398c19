package scan

import (
	"errors"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// TestOutcomeReportOnly: --fail-on none reports without failing, an
// incomplete server included, as check does; at the default threshold an
// incomplete or unaudited server still exits with the incomplete code.
func TestOutcomeReportOnly(t *testing.T) {
	incomplete := func(failOn policy.Severity) report.DiffReport {
		return report.DiffReport{Server: "s", Result: &diff.Result{Verdict: m.VerdictIncomplete, FailOn: failOn}}
	}
	unaudited := report.DiffReport{Server: "u", Error: "could not be audited"}
	none, _ := policy.ParseSeverity("none")
	for _, c := range []struct {
		name     string
		reports  []report.DiffReport
		allow    bool
		wantIncl bool
	}{
		{"incomplete at high", []report.DiffReport{incomplete(policy.High)}, false, true},
		{"incomplete at none", []report.DiffReport{incomplete(none)}, false, false},
		{"unaudited", []report.DiffReport{unaudited}, false, true},
		{"unaudited, report only", []report.DiffReport{unaudited}, ReportOnly("none"), false},
	} {
		err := Outcome(nil, c.reports, c.allow)
		if got := errors.Is(err, verdict.ErrIncomplete); got != c.wantIncl || (!c.wantIncl && err != nil) {
			t.Errorf("%s: outcome %v, want incomplete %v", c.name, err, c.wantIncl)
		}
	}
	for s, want := range map[string]bool{"none": true, "never": true, "high": false, "": false, "bogus": false} {
		if ReportOnly(s) != want {
			t.Errorf("ReportOnly(%q) = %v", s, !want)
		}
	}
}
