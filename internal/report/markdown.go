package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// CommentBudget is the most bytes the Markdown report takes: GitHub
// refuses a comment over 65,536 bytes, and the Action appends its policy
// note and the artifact's link. Servers are written most harmful first
// until the next one does not fit, shortened to its findings first; the
// rest stay in the roll-up table at the top, and the report says where
// the full one is.
const CommentBudget = 60_000

// FullReport says where a shortened Markdown report's full version is.
const FullReport = "the job summary and the report artifact in the Action; `--format json` or `--format html` on the command line"

// maxRollupRows bounds the roll-up table; passing servers share a row.
const maxRollupRows = 100

func markdownDiffs(w io.Writer, reports []DiffReport) error {
	reports = Ordered(reports)
	var b strings.Builder
	markdownHead(&b, reports)
	shown := 0
	for _, r := range reports {
		full := markdownServer(r, false)
		if b.Len()+len(full) > CommentBudget-1000 {
			full = markdownServer(r, true)
		}
		if b.Len()+len(full) > CommentBudget-1000 {
			break
		}
		b.WriteString(full)
		shown++
	}
	if shown < len(reports) {
		fmt.Fprintf(&b, "\n---\n\n_%d of %d servers are shown in full, most harmful first; the rest are in the table at the top "+
			"(a comment holds at most 65,536 bytes). The full report: %s._\n", shown, len(reports), FullReport)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownHead is the marker, the headline and, for several servers, the
// roll-up table.
func markdownHead(b *strings.Builder, reports []DiffReport) {
	v := rollup(reports)
	b.WriteString(MarkdownMarker + "\n")
	switch {
	case len(reports) == 0:
		b.WriteString("## mcp-audit: no MCP servers to check\n")
	case v.Fail+v.Broken == 0 && v.Incomplete == 0:
		fmt.Fprintf(b, "## mcp-audit: ✅ %d server(s) within policy\n", len(reports))
	case v.Fail+v.Broken == 0:
		fmt.Fprintf(b, "## mcp-audit: ⚠️ %d of %d server(s) could not be audited completely\n", v.Incomplete, len(reports))
	default:
		fmt.Fprintf(b, "## mcp-audit: ❌ %d of %d server(s) fail policy\n", v.Fail+v.Broken, len(reports))
	}
	if len(reports) < 2 {
		return
	}
	fmt.Fprintf(b, "\n%s\n\n| | Server | Findings |\n|---|---|---|\n", md(v.headline()))
	var passed []string
	rows := 0
	for _, r := range v.Rows {
		if r.Verdict == m.VerdictPass {
			passed = append(passed, r.Title)
			continue
		}
		if rows == maxRollupRows || b.Len() > CommentBudget/2 {
			fmt.Fprintf(b, "| | … | %d more failing or incomplete servers |\n", v.Fail+v.Incomplete+v.Broken-rows)
			break
		}
		rows++
		fmt.Fprintf(b, "| %s | %s | %s |\n", verdictIcon(r.Verdict), md(r.Title), md(r.What))
	}
	if len(passed) > 0 {
		// Every passing server is named while the head stays within half
		// the budget.
		var names strings.Builder
		for i, n := range passed {
			if b.Len()+names.Len() > CommentBudget/2 {
				fmt.Fprintf(&names, " … (+%d more)", len(passed)-i)
				break
			}
			if i > 0 {
				names.WriteString(", ")
			}
			names.WriteString(md(n))
		}
		fmt.Fprintf(b, "| ✅ pass | %s | |\n", names.String())
	}
}

func verdictIcon(v string) string {
	switch v {
	case m.VerdictFail:
		return "❌ fail"
	case m.VerdictIncomplete:
		return "⚠️ incomplete"
	case notAudited:
		return "❌ not audited"
	}
	return "✅ pass"
}

// maxShortFindings bounds the findings of a shortened server section.
const maxShortFindings = 20

// markdownServer is one server's section; short keeps the verdict and the
// worst findings only.
func markdownServer(r DiffReport, short bool) string {
	var b strings.Builder
	w := &b
	fmt.Fprintf(w, "\n### %s\n\n", md(title(r)))
	if r.Error != "" {
		fmt.Fprintf(w, "❌ The audit could not run: %s\n", md(r.Error))
		return b.String()
	}
	res := r.Result
	icon, _, _ := strings.Cut(verdictIcon(res.Verdict), " ")
	fmt.Fprintf(w, "%s **%s**. ", icon, md(resultVerdict(r)))
	if !r.Baseline {
		fmt.Fprint(w, "No baseline yet: these are all findings of this version.")
	} else {
		fmt.Fprintf(w, "%d behavior change(s) since the baseline.", len(res.Changes))
	}
	fmt.Fprintln(w)
	if res.Coverage != "" {
		fmt.Fprintf(w, "\n%s\n", md(res.Coverage))
	}
	for _, reason := range res.Incomplete {
		fmt.Fprintf(w, "\n- ⚠️ %s", md(reason))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n- ℹ️ %s", md(n))
	}
	if len(res.Incomplete)+len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	if len(res.Findings) > 0 {
		fmt.Fprintln(w, "\n| Severity | Finding | Phase | Evidence |\n|---|---|---|---|")
		for i, f := range res.Findings {
			if short && i == maxShortFindings {
				fmt.Fprintf(w, "| | … %d more findings in the full report | | |\n", len(res.Findings)-i)
				break
			}
			fmt.Fprintf(w, "| %s %s | %s | %s | %s |\n", icons[f.Severity], f.Severity, md(f.Summary), mdCode(f.Where()), mdCode(f.Evidence))
		}
	}
	if !short {
		markdownDetails(w, r)
	}
	return b.String()
}

// markdownDetails are the parts of a server's section that a shortened
// one leaves out: the changes, the accepted risk, how to accept the
// version and the allow-list for what was observed.
func markdownDetails(w io.Writer, r DiffReport) {
	res := r.Result
	if len(res.Changes) > 0 {
		fmt.Fprintf(w, "\n<details><summary>All %d behavior changes</summary>\n\n| | Area | Phase | What | Detail |\n|---|---|---|---|---|\n", len(res.Changes))
		for i, c := range res.Changes {
			if i == 200 {
				fmt.Fprintf(w, "| | … | | %d more in the JSON report | |\n", len(res.Changes)-200)
				break
			}
			sign := map[string]string{diff.Added: "➕", diff.Removed: "➖", diff.Changed: "✏️"}[c.Op]
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", sign, c.Area, mdCode(c.Phase), mdCode(c.Subject), mdCode(c.Detail))
		}
		fmt.Fprintln(w, "\n</details>")
	}
	if ar := res.AcceptedRisk; ar != nil {
		fmt.Fprintf(w, "\n⚠️ **Accepted risk** (recorded in the baseline %s): %s\n", md(ar.At), md(ar.Reason))
	}
	switch {
	case r.NotAcceptable != "":
		fmt.Fprintf(w, "\n**Not offered as a baseline:** %s\n", md(r.NotAcceptable))
	case r.Accept != "" && len(res.Findings) > 0:
		fmt.Fprintf(w, "\nIf this behavior is expected, accept it as the new baseline:\n\n```sh\n%s\n```\n", strings.ReplaceAll(r.Accept, "`", ""))
	}
	if a := r.SuggestedAllow; a != nil && !a.Empty() {
		var b strings.Builder
		AllowBlock(&b, *a, "")
		fmt.Fprintf(w, "\n<details><summary>Allow-list for what was observed</summary>\n\n```yaml\n%s```\n\n</details>\n", strings.ReplaceAll(b.String(), "`", "'"))
	}
}
