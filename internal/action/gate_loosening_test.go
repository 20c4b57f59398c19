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

// Adversarial review (w2-review): pull requests that loosen the policy
// they are checked under without a policy-loosened finding.

func reviewLoosens(cs []policyChange) bool {
	for _, c := range cs {
		if c.Loosens {
			return true
		}
	}
	return false
}

// TestReviewGateRenameDropsCanary: renaming a server makes it "new", and a
// new server's env and canary_env are its own: the PR drops the planted
// MAIL_TOKEN canary (and pins the variable itself) without a finding.
// Control: the same edit without the rename is flagged.
func TestReviewGateRenameDropsCanary(t *testing.T) {
	base := parseCfg(t, "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n    canary_env: [MAIL_TOKEN]\n")
	same := parseCfg(t, "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.1\n    env: {MAIL_TOKEN: not-a-canary}\n")
	if !reviewLoosens(policyChanges(base, same)) {
		t.Fatalf("control not flagged")
	}
	renamed := parseCfg(t, "servers:\n  mail-v2:\n    target: npm:mail\n    version: 1.0.1\n    env: {MAIL_TOKEN: not-a-canary}\n")
	if !reviewLoosens(policyChanges(base, renamed)) {
		t.Errorf("BYPASS: renaming mail to mail-v2 drops canary_env and sets env without a loosening: %+v", policyChanges(base, renamed))
	}
}

// TestReviewGateTargetSwap: the policy is keyed by the server's name, not
// by what it runs: a PR that points an entry with a reviewed allow-list
// and network: open at another package inherits them silently.
func TestReviewGateTargetSwap(t *testing.T) {
	pol := "    network: open\n    allow: {hosts: [api.good.example], processes: [sh]}\n"
	base := parseCfg(t, "servers:\n  s:\n    target: npm:good\n    version: 1.0.0\n"+pol)
	head := parseCfg(t, "servers:\n  s:\n    target: npm:other-package\n    version: 9.9.9\n"+pol)
	if cs := policyChanges(base, head); !reviewLoosens(cs) {
		t.Errorf("BYPASS: the base's allow-list and network: open now apply to another package, no loosening: %+v", cs)
	}
}

// reviewRunPR runs the Action on a pull request with the given inputs and
// returns the check's configuration and options.
func reviewRunPR(t *testing.T, ws string, inputs map[string]string) (*config.Config, check.Options, *fakeRunner) {
	t.Helper()
	r := newRunner(t, ws, "pull_request", testenv.NewGitHub(t, token).URL, inputs)
	var gotCfg *config.Config
	var gotOpts check.Options
	fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
		gotCfg, gotOpts = c, o
		return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
	}
	Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: fake})
	return gotCfg, gotOpts, r
}

// TestReviewGateWorkflowInputs: on pull_request GitHub runs the workflow
// file of the pull request, so its inputs are the PR author's: fail-on
// and network override the base's configuration with no finding.
func TestReviewGateWorkflowInputs(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	wf := ".github/workflows/mcp-audit.yml"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg, wf: "steps: [{uses: mcp-audit/mcp-audit@v1}]\n"},
		map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1),
			wf: "steps: [{uses: mcp-audit/mcp-audit@v1, with: {fail-on: none, network: open}}]\n"})
	_, o, r := reviewRunPR(t, ws, map[string]string{"fail-on": "none", "network": "open"})
	if o.FailOn == "none" || o.Base.Sandbox.Network == "open" {
		t.Errorf("BYPASS: the PR's workflow sets fail-on %q network %q for its own check; verdict %q, high %q",
			o.FailOn, o.Base.Sandbox.Network, r.output("verdict"), r.output("high"))
	}
}

// TestReviewGateConfigPathAlias: the config input names the same file by
// another path (the PR's workflow says "x/../mcp-audit.yml"): the host
// loads it, git show of the base finds nothing, and the PR's own policy
// stands, its dropped canary unflagged. Control: the plain path.
func TestReviewGateConfigPathAlias(t *testing.T) {
	base := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n    canary_env: [MAIL_TOKEN]\n"
	head := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.1\n    env: {MAIL_TOKEN: not-a-canary}\n"
	for _, path := range []string{"mcp-audit.yml", "x/../mcp-audit.yml"} {
		t.Run(path, func(t *testing.T) {
			ws := repo(t, map[string]string{"mcp-audit.yml": base}, map[string]string{"mcp-audit.yml": head})
			c, _, r := reviewRunPR(t, ws, map[string]string{"config": path})
			if c == nil {
				t.Fatalf("check did not run:\n%s", r.stdout.String())
			}
			s := c.Server("mail")
			if len(s.CanaryEnv) == 0 && !strings.Contains(r.stdout.String(), KindPolicyLoosened) && r.output("high") == "1" {
				t.Errorf("BYPASS: checked with the PR's canary_env %v env %v, no policy-loosened finding", s.CanaryEnv, s.Env)
			}
		})
	}
}
