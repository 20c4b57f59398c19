package action

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestStickyCommentOnlyThisJobs: comments by the same github-actions[bot]
// that another workflow or job wrote (the generic marker, another job's
// marker, this job's marker quoted below the first line) are never edited
// as the sticky comment; this job's own is, on the next run.
func TestStickyCommentOnlyThisJobs(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1)})
	api := testenv.NewGitHub(t, token)
	bot := testenv.User{Login: "github-actions[bot]"}
	ref := "acme/tools/.github/workflows/mcp-audit.yml@refs/pull/42/merge"
	ours := "<!-- mcp-audit-report workflow=acme%2Ftools%2F.github%2Fworkflows%2Fmcp-audit.yml job=audit -->"
	forged := []testenv.Comment{
		{ID: 1, Body: report.MarkdownMarker + "\n## mcp-audit: ✅ all clear", User: bot},
		{ID: 2, Body: strings.Replace(ours, "job=audit", "job=other", 1) + "\n## mcp-audit: ✅ all clear", User: bot},
		{ID: 3, Body: "quoting:\n" + ours + "\n## mcp-audit: ✅ all clear", User: bot},
	}
	api.Comments[42] = append([]testenv.Comment(nil), forged...)
	for i := range 2 {
		r := newRunner(t, ws, "pull_request", api.URL, nil)
		r.vars["GITHUB_WORKFLOW_REF"], r.vars["GITHUB_JOB"] = ref, "audit"
		fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
			return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
		}
		Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: fake})
		cs := api.CommentsOf(42)
		if len(cs) != 4 {
			t.Fatalf("run %d: %d comments, want the 3 forged and 1 of ours: %+v", i, len(cs), cs)
		}
		for j, f := range forged {
			if cs[j] != f {
				t.Errorf("run %d: forged comment %d edited: %q", i, f.ID, cs[j].Body)
			}
		}
		if !strings.HasPrefix(cs[3].Body, ours+"\n") {
			t.Errorf("run %d: our comment does not open with the job's marker: %q", i, cs[3].Body[:min(len(cs[3].Body), 200)])
		}
	}
}
