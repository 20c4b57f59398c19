package report

import (
	"fmt"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// VerdictText is the verdict with its real reason, the same in every
// renderer: the findings at or above the threshold, the harmful findings
// that fail at any threshold (named by kind), what the audit could not
// observe, or, under --fail-on none, that nothing fails and what would.
// v is the verdict (policy.Verdict, or a result's, which the Action can
// have raised); the incomplete reasons themselves are for the caller to
// list.
func VerdictText(v string, findings []policy.Finding, pol policy.Policy, incomplete []string) string {
	var above, harmful []policy.Finding
	for _, f := range findings {
		switch {
		case f.Severity >= pol.FailOn:
			above = append(above, f)
		case policy.Harmful(f):
			harmful = append(harmful, f)
		}
	}
	var why []string
	if len(above) > 0 {
		why = append(why, fmt.Sprintf("%s at or above %s", plural(len(above), "finding", "findings"), threshold(pol.FailOn)))
	}
	if len(harmful) > 0 {
		verb := "fail"
		if len(harmful) == 1 {
			verb = "fails"
		}
		why = append(why, fmt.Sprintf("%s, which %s at any threshold: %s", plural(len(harmful), "harmful finding", "harmful findings"), verb, byKind(harmful)))
	}
	switch {
	case pol.FailOn > policy.Critical:
		text := "report only (--fail-on none: nothing fails the run)"
		if h := policy.HarmfulOnes(findings); len(h) > 0 {
			text += fmt.Sprintf("; %s would fail at any other threshold: %s", plural(len(h), "harmful finding", "harmful findings"), byKind(h))
		}
		if len(incomplete) > 0 {
			text += "; the audit is incomplete"
		}
		return text
	case v == m.VerdictFail && len(why) == 0:
		return "FAIL"
	case v == m.VerdictFail:
		return "FAIL (" + strings.Join(why, "; ") + ")"
	case v == m.VerdictIncomplete:
		return fmt.Sprintf("INCOMPLETE (nothing at or above %s, but the audit could not observe what a verdict needs; --allow-incomplete to accept)", threshold(pol.FailOn))
	case len(incomplete) > 0:
		return fmt.Sprintf("pass (nothing at or above %s; incomplete, allowed)", threshold(pol.FailOn))
	}
	return fmt.Sprintf("pass (nothing at or above %s)", threshold(pol.FailOn))
}

// threshold names a --fail-on value as the user wrote it.
func threshold(s policy.Severity) string {
	if s > policy.Critical {
		return "none"
	}
	return s.String()
}

// byKind is "9 high sensitive-file, 1 critical canary": findings counted
// by severity and kind, worst first.
func byKind(fs []policy.Finding) string {
	type key struct {
		sev  policy.Severity
		kind string
	}
	counts := map[key]int{}
	var order []key
	for _, f := range fs {
		k := key{f.Severity, line(f.Kind)}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var parts []string
	for s := policy.Critical; s >= policy.Info; s-- {
		for _, k := range order {
			if k.sev == s {
				parts = append(parts, fmt.Sprintf("%d %s %s", counts[k], s, k.kind))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// resultVerdict is VerdictText of a comparison's result.
func resultVerdict(r DiffReport) string {
	res := r.Result
	return VerdictText(res.Verdict, res.Findings, res.Policy(), res.Incomplete)
}
