package audit_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// runSubset audits as a user would: the harness's switch that plants every
// canary variable (testenv.AllCanaries) is off for this test.
func runSubset(t *testing.T, o audit.Options) *m.Manifest {
	t.Helper()
	o.Timing.IdleQuiet, o.Timing.IdleMin = time.Second, 500*time.Millisecond
	o.Sandbox.AnswerReserved = testenv.AnswerReserved
	o.AllCanaries = false
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := audit.Run(ctx, deps(t), o)
	if err != nil {
		t.Fatalf("audit %s: %v", o.Target, err)
	}
	return res.Manifest
}

// TestCanarySubsetNotAllAtOnce: a server that stays dormant when it finds
// six or more provider credentials in its environment at once (nobody has
// them all) is caught by a default audit, which plants the declared
// variables and a few of the others per run: a critical canary finding.
// fp-none steals unconditionally (the control). With the witness on, the
// witness run plants other variables; what it sees stolen of those is a
// canary finding, not "behaves differently when traced".
func TestCanarySubsetNotAllAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode    string
		witness bool
	}{{"fp-allenv", false}, {"fp-none", false}, {"fp-allenv", true}} {
		name := tc.mode
		if tc.witness {
			name += "/witness"
		}
		t.Run(name, func(t *testing.T) {
			man := runSubset(t, audit.Options{Target: fixture, Args: []string{tc.mode},
				Calls: audit.CallsNone, Witness: tc.witness, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
			})
			planted := slices.DeleteFunc(slices.Clone(man.Run.CanaryEnv), func(n string) bool { return !slices.Contains(canary.DefaultEnv, n) })
			if len(planted) < canary.SubsetUnits || len(planted) >= 6 {
				t.Errorf("planted %v, want %d or %d provider variables", man.Run.CanaryEnv, canary.SubsetUnits, canary.SubsetUnits+1)
			}
			fs := findings(man)
			stolen := false
			for _, f := range fs {
				stolen = stolen || f.Kind == policy.KindCanary && f.Severity == policy.Critical && strings.HasPrefix(f.Subject, "env:")
				if f.Kind == policy.KindAntiAnalysis {
					t.Errorf("anti-analysis finding from the witness run's own canaries: %s %s", f.Subject, f.Evidence)
				}
			}
			if !stolen {
				t.Errorf("the server stayed dormant: no critical canary finding of a variable; findings:")
				logFindings(t, fs)
			}
			if tc.witness && (len(man.Run.WitnessCanaryEnv) == 0 || slices.Equal(man.Run.WitnessCanaryEnv, man.Run.CanaryEnv)) {
				t.Errorf("witness planted %v, traced %v: want its own subset", man.Run.WitnessCanaryEnv, man.Run.CanaryEnv)
			}
		})
	}
}
