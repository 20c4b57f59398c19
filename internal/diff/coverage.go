package diff

import (
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// KindCoverage marks a candidate that was exercised less than its
// baseline: it stopped running, fewer tools answered, fewer calls were
// ok. What a release no longer lets the audit see is what a rug pull
// hides behind, so it is high.
const KindCoverage = "coverage"

// coverageFindings compares how much of each version the audit could
// exercise, counted from the calls (coverage.Compute), so baselines of
// any schema version compare.
func (r *Result) coverageFindings(old, new *m.Manifest) {
	add := func(subject, summary, evidence string) {
		r.Findings = append(r.Findings, policy.Finding{Severity: policy.High, Kind: KindCoverage, Subject: subject,
			Summary: summary, Evidence: evidence})
	}
	if old.Outcome.Status == m.StatusOK && new.Outcome.Status != m.StatusOK {
		add(new.Outcome.Status, "the new version no longer runs where its baseline ran: "+new.Outcome.Reason,
			"baseline: "+old.Outcome.Status+"; candidate: "+new.Outcome.Status)
	}
	oc, nc := coverage.Compute(old, ""), coverage.Compute(new, "")
	if nc.Tools.OK < oc.Tools.OK {
		add("tools answered", fmt.Sprintf("fewer tools answer than in the baseline: %d, was %d", nc.Tools.OK, oc.Tools.OK),
			"baseline: "+coverage.Summary(oc)+"; candidate: "+coverage.Summary(nc))
	}
	if ok, was := callsOK(new), callsOK(old); ok < was {
		add("calls answered", fmt.Sprintf("fewer calls answer than in the baseline: %d, was %d", ok, was), failedTools(old, new))
	}
	if len(nc.Incomplete) > 0 && len(oc.Incomplete) == 0 {
		add("incomplete", "the new version could not be audited as its baseline was: "+nc.Incomplete[0], strings.Join(nc.Incomplete, "; "))
	}
}

func callsOK(man *m.Manifest) int {
	n := 0
	for _, c := range man.Calls {
		if c.Outcome == m.CallOK {
			n++
		}
	}
	return n
}

// failedTools names the calls ok in the baseline and not in the
// candidate.
func failedTools(old, new *m.Manifest) string {
	ok := map[string]bool{}
	for _, c := range new.Calls {
		if c.Outcome == m.CallOK {
			ok[c.Phase] = true
		}
	}
	var out []string
	for _, c := range old.Calls {
		if c.Outcome == m.CallOK && !ok[c.Phase] && len(out) < 10 {
			out = append(out, c.Phase)
		}
	}
	return "ok in the baseline only: " + strings.Join(out, ", ")
}
