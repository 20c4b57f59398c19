package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// TestRunWritesOnlyWhereAContainerActionCan: GitHub mounts the workspace,
// the home directory and the file-command files into a container action,
// not RUNNER_TEMP, which names a path on the runner's host. The report and
// SARIF go to the workspace and their outputs are workspace-relative, so
// later steps (on the host or in another container) find them.
func TestRunWritesOnlyWhereAContainerActionCan(t *testing.T) {
	cfg := "fail_on: high\nservers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1)})
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "pull_request", api.URL, map[string]string{"sarif": "out/mcp-audit.sarif"})
	r.vars["RUNNER_TEMP"] = filepath.Join(t.TempDir(), "home", "runner", "work", "_temp") // not mounted: absent
	fake := func(context.Context, *config.Config, check.Options) ([]report.DiffReport, error) {
		return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
	}
	err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Version: "test", Check: fake})
	if !errors.Is(err, verdict.ErrFindings) {
		t.Fatalf("Run: %v, want ErrFindings\n%s", err, r.stdout.String())
	}
	if _, err := os.Stat(r.vars["RUNNER_TEMP"]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the Action wrote under RUNNER_TEMP: %v", err)
	}
	for name, want := range map[string]string{"report": ".mcp-audit/report.md", "sarif": "out/mcp-audit.sarif"} {
		if got := r.output(name); got != want {
			t.Errorf("output %s = %q, want the workspace-relative %q", name, got, want)
		}
		if _, err := os.Stat(filepath.Join(ws, want)); err != nil {
			t.Errorf("output %s: %v", name, err)
		}
	}
	if out := testenv.GitOut(t, ws, "status", "--porcelain", "--untracked-files=all"); strings.Contains(out, ".mcp-audit") {
		t.Errorf("the report must not show up as an untracked file:\n%s", out)
	}
}
