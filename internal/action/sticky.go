package action

import (
	"net/url"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/report"
)

// The sticky comment is found again by its author (the token's identity)
// and by a marker on its first line. The generic marker is in every
// mcp-audit report, and every workflow of the repository comments as the
// same github-actions[bot], so the marker names this workflow file and
// job too: another workflow, or another job running mcp-audit, writes
// another marker, and its comments are never edited as this one's. A
// workflow of the same repository can still copy the marker on purpose;
// it needs write access to the repository to exist, which is more than
// forging a comment takes (docs/action.md, "The sticky comment").

// stickyMarker is the first line of this workflow job's sticky comment.
func stickyMarker(getenv func(string) string) string {
	wf := getenv("GITHUB_WORKFLOW_REF")
	if i := strings.LastIndex(wf, "@"); i >= 0 {
		wf = wf[:i]
	}
	if wf == "" {
		wf = getenv("GITHUB_WORKFLOW")
	}
	name := strings.TrimSuffix(strings.TrimPrefix(report.MarkdownMarker, "<!-- "), " -->")
	return "<!-- " + name + " workflow=" + url.PathEscape(wf) + " job=" + url.PathEscape(getenv("GITHUB_JOB")) + " -->"
}
