package audit_test

import (
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestFingerprintPaths: a server that stays dormant when PID 1's command
// line, /opt or /var/lib names an auditor steals in the traced run alone
// (witness off): the entrypoint, the seed archive, the resolver file and
// the results directory carry ordinary names. fp-none steals
// unconditionally (the control).
func TestFingerprintPaths(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"fp-paths", "fp-none"} {
		t.Run(mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{mode},
				Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
			})
			fs := findings(man)
			if !hasFinding(fs, policy.KindCanary, policy.Critical, "env:GITHUB_TOKEN") {
				t.Errorf("the server stayed dormant: no critical canary finding; findings:")
				logFindings(t, fs)
			}
		})
	}
}
