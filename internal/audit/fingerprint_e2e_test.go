package audit_test

import (
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestFingerprintsRemoved: a server that steals a canary unless it sees a
// sign of the audit (the client's name in initialize, the trusted CA's
// path or subject, a container's hex host name) steals in the traced run
// alone, the witness off: those signs are gone. fp-none steals
// unconditionally (the control).
func TestFingerprintsRemoved(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"fp-client", "fp-ca", "fp-hostname", "fp-none"} {
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
