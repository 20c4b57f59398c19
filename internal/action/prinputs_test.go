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

const testWorkflow = ".github/workflows/mcp-audit.yml"

// workflowWith is a workflow whose job "audit" runs the action with the
// given with: block ("" for none).
func workflowWith(with string) string {
	s := "on: pull_request\njobs:\n  audit:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n      - uses: mcp-audit/mcp-audit@v1\n"
	if with != "" {
		s += "        with:\n" + with
	}
	return s
}

// TestPRInputsJudgedByBaseWorkflow: on pull_request the policy-bearing
// inputs are compared with what the base commit's version of the running
// workflow gives this step: equal stands, tightening stands, loosening is
// replaced by the base's value and is a policy-loosened finding.
func TestPRInputsJudgedByBaseWorkflow(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	for _, tc := range []struct {
		name, baseWith        string
		inputs                map[string]string
		wantFailOn, wantNet   string
		wantLoosened, noWFEnv bool
	}{
		{name: "report-only kept", baseWith: "          fail-on: none\n", inputs: map[string]string{"fail-on": "none"}, wantFailOn: "none"},
		{name: "loosened fail-on and network", inputs: map[string]string{"fail-on": "none", "network": "open"}, wantLoosened: true},
		{name: "reviewed network open kept", baseWith: "          network: open\n", inputs: map[string]string{"network": "open"}, wantNet: "open"},
		{name: "tightened", baseWith: "          fail-on: high\n", inputs: map[string]string{"fail-on": "low", "network": "none"}, wantFailOn: "low", wantNet: "none"},
		{name: "removed tightening", baseWith: "          fail-on: low\n", inputs: map[string]string{}, wantLoosened: true, wantFailOn: "low"},
		{name: "expression is unknown", baseWith: "          fail-on: ${{ inputs.level }}\n", inputs: map[string]string{"fail-on": "none"}, wantLoosened: true},
		{name: "no workflow ref", baseWith: "          fail-on: none\n", inputs: map[string]string{"fail-on": "none"}, wantLoosened: true, noWFEnv: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := repo(t, map[string]string{"mcp-audit.yml": cfg, testWorkflow: workflowWith(tc.baseWith)},
				map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1), testWorkflow: "changed by the pull request\n"})
			o, r, api := runPRWithWorkflow(t, ws, tc.inputs, !tc.noWFEnv)
			if o.FailOn != tc.wantFailOn || o.Base.Sandbox.Network != tc.wantNet {
				t.Errorf("checked with fail-on %q network %q, want %q %q", o.FailOn, o.Base.Sandbox.Network, tc.wantFailOn, tc.wantNet)
			}
			body := ""
			if cs := api.CommentsOf(42); len(cs) == 1 {
				body = cs[0].Body
			}
			if got := strings.Contains(body, "⚠️ loosens"); got != tc.wantLoosened {
				t.Errorf("loosened %v, want %v; comment:\n%s", got, tc.wantLoosened, body)
			}
			if tc.wantLoosened && !strings.Contains(r.stdout.String(), "loosens the policy it is checked under") {
				t.Errorf("no policy-loosened finding:\n%s", r.stdout.String())
			}
		})
	}
}

// TestPRInputConfigMoved: a pull request that points the config input at
// another file than the base's workflow does is a loosening: the base's
// policy is not where the pull request says.
func TestPRInputConfigMoved(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n    canary_env: [MAIL_TOKEN]\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg, testWorkflow: workflowWith("")},
		map[string]string{"ci/relaxed.yml": strings.Replace(cfg, "    canary_env: [MAIL_TOKEN]\n", "", 1)})
	_, _, api := runPRWithWorkflow(t, ws, map[string]string{"config": "ci/relaxed.yml"}, true)
	cs := api.CommentsOf(42)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "input config") || !strings.Contains(cs[0].Body, "⚠️ loosens") {
		t.Errorf("moving the config is not flagged: %+v", cs)
	}
}

// runPRWithWorkflow runs the Action on a pull request as job "audit" of
// testWorkflow (withRef: the runner names the workflow) and returns the
// check's options.
func runPRWithWorkflow(t *testing.T, ws string, inputs map[string]string, withRef bool) (check.Options, *fakeRunner, *testenv.GitHub) {
	t.Helper()
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "pull_request", api.URL, inputs)
	if withRef {
		r.vars["GITHUB_WORKFLOW_REF"] = "acme/tools/" + testWorkflow + "@refs/pull/42/merge"
		r.vars["GITHUB_JOB"] = "audit"
	}
	var o check.Options
	fake := func(ctx context.Context, c *config.Config, got check.Options) ([]report.DiffReport, error) {
		o = got
		return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
	}
	Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: fake})
	return o, r, api
}

// TestPRServersInputCannotSkip: the servers input of a pull request's own
// workflow can add servers to the check, never leave out a changed one.
func TestPRServersInputCannotSkip(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n  other:\n    target: npm:other\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg},
		map[string]string{"mcp-audit.yml": strings.Replace(cfg, "version: 1.0.0\n  other", "version: 1.0.1\n  other", 1)})
	o, _, _ := runPRWithWorkflow(t, ws, map[string]string{"servers": "other"}, false)
	if strings.Join(o.Servers, ",") != "other,mail" {
		t.Errorf("checked servers %v, want other,mail", o.Servers)
	}
}
