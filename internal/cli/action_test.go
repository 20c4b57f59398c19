package cli

import (
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

const token = "ghs_testtoken1234567890"

// TestActionSkipsPullRequestsWithoutServerChanges needs no engine: a PR
// that does not touch the configuration or baselines checks nothing.
func TestActionSkipsPullRequestsWithoutServerChanges(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail-mcp\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"README.md": "docs\n"})
	api := testenv.NewGitHub(t, token)
	e := newActionEnv(t, ws, "pull_request", api, nil)
	code, stdout, stderr := e.run()
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if e.output("verdict") != "pass" || len(api.Requests) != 0 {
		t.Errorf("verdict %q, API requests %v", e.output("verdict"), api.Requests)
	}
	if !strings.Contains(stdout, "::add-mask::"+token) {
		t.Error("the token must be masked first")
	}
	if strings.Count(stdout+stderr, token) != 1 {
		t.Error("the token may appear only in the mask command")
	}
}
