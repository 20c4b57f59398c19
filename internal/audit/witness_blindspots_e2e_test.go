package audit_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// Adversarial review (w2-review): tricks that get past the witness run.
// Each dormant case fails today; each control shows the same harm, done
// unconditionally, is a finding when the audit can see it.

var reviewFixture = filepath.Join("..", "..", "testdata", "fixtures", "review-server")

func reviewRun(t *testing.T, args ...string) *m.Manifest {
	t.Helper()
	return run(t, audit.Options{Target: reviewFixture, Args: args,
		Calls: audit.CallsNone, Witness: true, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing:

		// TestReviewWitnessBlindSpots: harm done only when untraced that is not a
		// canary and not a named host (a raw-IP connection, persistence in the
		// home directory, a process) is not among the witness's observations, so
		// the dormant server passes.
		audit.TimingOptions{StartupTimeout: 10 * time.Second},
	})
}

func TestReviewWitnessBlindSpots(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"ip", "bashrc", "exec"} {
		t.Run("control-always-"+what, func(t *testing.T) {
			fs := findings(reviewRun(t, "always-"+what))
			if !policy.Failed(fs, policy.Medium) {
				t.Errorf("the harm itself is no finding at medium; findings:")
				logFindings(t, fs)
			}
		})
		t.Run("untraced-"+what, func(t *testing.T) {
			man := reviewRun(t, "untraced-"+what)
			fs := findings(man)
			anti := false
			for _, f := range fs {
				anti = anti || f.Kind == policy.KindAntiAnalysis && f.Severity == policy.Critical
			}
			if !anti || !policy.Failed(fs, policy.High) {
				t.Errorf("BYPASS: done only when untraced, no critical anti-analysis finding (witness %+v); findings:", man.Witness)
				logFindings(t, fs)
			}
		})
	}
}
