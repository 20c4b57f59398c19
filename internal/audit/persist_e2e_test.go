package audit_test

import (
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestPersistByEffect: a write that changes what another program runs or
// loads later is persistence wherever it lies, like the ~/.bashrc write
// (the control, caught before this rule). Paths are relative to HOME; the
// workspace is ~/workspace.
func TestPersistByEffect(t *testing.T) {
	t.Parallel()
	plant := func(rel, kind, subject string) blindCase {
		return blindCase{args: []string{"plant=" + rel}, kind: kind, sev: policy.Critical, subject: subject}
	}
	p, ai := policy.KindPersistence, policy.KindAIConfig
	runBlind(t, map[string]blindCase{
		"control-bashrc":  {args: []string{"write-onto=.bashrc"}, kind: p, sev: policy.Critical, subject: "~/.bashrc"},
		"git-hook":        plant("workspace/.git/hooks/pre-commit", p, "<workspace>/.git/hooks/pre-commit"),
		"githooks":        plant("workspace/.githooks/pre-commit", p, "<workspace>/.githooks/pre-commit"),
		"nested-git-hook": plant("workspace/vendor/lib/.git/hooks/post-checkout", p, "<workspace>/vendor/lib/.git/hooks/post-checkout"),
		"git-config":      plant("workspace/.git/config", p, "<workspace>/.git/config"),
		"claude-md":       plant("workspace/CLAUDE.md", ai, "<workspace>/CLAUDE.md"),
		"agents-md":       plant("workspace/AGENTS.md", ai, "<workspace>/AGENTS.md"),
		"local-bin":       plant(".local/bin/git", p, "~/.local/bin/git"),
		"pth":             plant(".local/lib/python3.11/site-packages/zz-init.pth", p, "site-packages/zz-init.pth"),
		"usercustomize":   plant(".local/lib/python3.11/site-packages/usercustomize.py", p, "usercustomize.py"),
		"npx-cache":       plant(".npm/_npx/a1b2c3/node_modules/left-pad/index.js", p, "~/.npm/_npx/"),
		"fish":            plant(".config/fish/conf.d/zz.fish", p, "~/.config/fish/conf.d/zz.fish"),
		"zshenv":          plant(".zshenv", p, "~/.zshenv"),
		"zlogout":         plant(".zlogout", p, "~/.zlogout"),
		"bash-logout":     plant(".bash_logout", p, "~/.bash_logout"),
		"npmrc-project":   plant("workspace/.npmrc", p, "<workspace>/.npmrc"),
	})
}

// TestSecretIntoWorkspace: a canary value written into any file of the
// workspace is critical (the next commit or upload carries it); the same
// write of harmless text is not a finding at all.
func TestSecretIntoWorkspace(t *testing.T) {
	t.Parallel()
	runBlind(t, map[string]blindCase{
		"readme":   {args: []string{"secret-into=workspace/README.md"}, kind: policy.KindCanary, sev: policy.Critical, subject: "env:GITHUB_TOKEN written-to-file"},
		"new-file": {args: []string{"secret-into=workspace/notes/new.txt"}, kind: policy.KindCanary, sev: policy.Critical, subject: "env:GITHUB_TOKEN written-to-file"},
	})
	for name, args := range map[string][]string{"control-readme": {"text-into=workspace/README.md"}, "control-new-file": {"text-into=workspace/notes/new.txt"}} {
		t.Run(name, func(t *testing.T) {
			fs := findings(runQuiet(t, args))
			for _, f := range fs {
				if f.Kind == policy.KindCanary || f.Severity >= policy.Medium {
					t.Errorf("unexpected finding: %+v", f)
				}
			}
		})
	}
}

// TestListenerReach: a listener on every interface is a bind shell
// (high); the same listener on loopback is low.
func TestListenerReach(t *testing.T) {
	t.Parallel()
	runBlind(t, map[string]blindCase{
		"any-address": {args: []string{"listen=0.0.0.0"}, kind: policy.KindListener, sev: policy.High, subject: "0.0.0.0"},
	})
	t.Run("control-loopback", func(t *testing.T) {
		fs := findings(runQuiet(t, []string{"listen=127.0.0.1"}))
		if !hasFinding(fs, policy.KindListener, policy.Low, "127.0.0.1") {
			t.Errorf("no low listener finding on loopback: %+v", fs)
		}
		if policy.Failed(fs, policy.Medium) {
			t.Errorf("loopback listener fails at medium: %+v", fs)
		}
	})
}

// runQuiet runs the fixture with arguments and no calls, as runBlind does.
func runQuiet(t *testing.T, args []string) *m.Manifest {
	t.Helper()
	return run(t, audit.Options{Target: fixture, Args: args,
		Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
	})
}
