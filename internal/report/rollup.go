package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// rollupRow is one server in the roll-up at the top of a multi-server
// report.
type rollupRow struct {
	Verdict string // fail, incomplete, pass, or "not audited"
	Title   string
	// What is the findings by severity and kind, or why the audit is
	// incomplete or could not run.
	What string
}

// rollupView is the roll-up: how many servers have each verdict, all
// findings by severity, and one row per server, most harmful first.
type rollupView struct {
	Servers, Fail, Incomplete, Pass, Broken int
	Findings                                string
	Rows                                    []rollupRow
}

const notAudited = "not audited"

// rollup sums up reports, which are in harm order.
func rollup(reports []DiffReport) rollupView {
	v := rollupView{Servers: len(reports)}
	var all []policy.Finding
	for _, r := range reports {
		row := rollupRow{Title: title(r)}
		switch {
		case r.Result == nil:
			v.Broken++
			row.Verdict, row.What = notAudited, oneLine(r.Error, 300)
		default:
			res := r.Result
			all = append(all, res.Findings...)
			row.Verdict, row.What = res.Verdict, findingsLine(res.Findings)
			switch res.Verdict {
			case m.VerdictFail:
				v.Fail++
			case m.VerdictIncomplete:
				v.Incomplete++
				if len(res.Incomplete) > 0 {
					row.What = oneLine(res.Incomplete[0], 300)
				}
			default:
				v.Pass++
			}
		}
		v.Rows = append(v.Rows, row)
	}
	v.Findings = severityCounts(all)
	return v
}

// headline is the roll-up's first line without the tool's name.
func (v rollupView) headline() string {
	parts := []string{fmt.Sprintf("%d fail", v.Fail), fmt.Sprintf("%d incomplete", v.Incomplete), fmt.Sprintf("%d pass", v.Pass)}
	if v.Broken > 0 {
		parts = append(parts, fmt.Sprintf("%d not audited", v.Broken))
	}
	return fmt.Sprintf("%d servers: %s; findings: %s", v.Servers, strings.Join(parts, ", "), cmp.Or(v.Findings, "none"))
}

// maxPassNamed bounds the passing servers the text roll-up names.
const maxPassNamed = 40

// WriteRollup prints the roll-up of a multi-server text report, whose
// reports are in harm order (Ordered): the headline, a line per failing,
// incomplete or unaudited server, and the passing ones on one line.
func WriteRollup(w io.Writer, reports []DiffReport) {
	v := rollup(reports)
	fmt.Fprintf(w, "mcp-audit: %s\n", v.headline())
	var passed []string
	for _, r := range v.Rows {
		if r.Verdict == m.VerdictPass {
			passed = append(passed, r.Title)
			continue
		}
		fmt.Fprintf(w, "  %-11s %s: %s\n", strings.ToUpper(r.Verdict), r.Title, r.What)
	}
	if len(passed) > 0 {
		named := passed[:min(len(passed), maxPassNamed)]
		more := ""
		if len(passed) > len(named) {
			more = fmt.Sprintf(", … (+%d more)", len(passed)-len(named))
		}
		fmt.Fprintf(w, "  %-11s %s%s\n", "pass", strings.Join(named, ", "), more)
	}
	fmt.Fprintln(w)
}

// findingsLine is "1 critical, 2 high (canary, host)": the counts by
// severity and the kinds of the worst findings.
func findingsLine(fs []policy.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	worst := policy.Info
	for _, f := range fs {
		worst = max(worst, f.Severity)
	}
	var kinds []string
	for _, f := range fs {
		if k := line(f.Kind); f.Severity == worst && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return severityCounts(fs) + " (" + strings.Join(kinds, ", ") + ")"
}

// severityCounts is "1 critical, 2 high", "" without findings.
func severityCounts(fs []policy.Finding) string {
	counts := policy.Counts(fs)
	var parts []string
	for s := policy.Critical; s >= policy.Info; s-- {
		if n := counts[s.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string { return textsafe.Line(s, n) }
