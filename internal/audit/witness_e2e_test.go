package audit_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// witnessRun audits the fixture with the given modes and the witness run
// on, as check, batch and the scheduled Action do by default.
func witnessRun(t *testing.T, args ...string) *m.Manifest {
	t.Helper()
	return run(t, audit.Options{Target: fixture, Args: args,
		Calls: audit.CallsNone, Witness: true, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
	})
}

func logFindings(t *testing.T, fs []policy.Finding) {
	t.Helper()
	for _, f := range fs {
		t.Logf("  %s %s %s %s: %s", f.Severity, f.Kind, f.Phase, f.Subject, f.Evidence)
	}
}

// TestWitnessDormantWhenTraced: a server that steals a canary only when it
// is not traced (it reads TracerPid, or its parent's name) or not under
// the clock shim (LD_PRELOAD, FAKETIME) is a critical anti-analysis
// finding, with what each run saw as evidence.
func TestWitnessDormantWhenTraced(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"fp-tracer", "fp-tracer-name", "fp-clock"} {
		t.Run(mode, func(t *testing.T) {
			man := witnessRun(t, mode)
			fs := findings(man)
			var got *policy.Finding
			for i, f := range fs {
				if f.Kind == policy.KindAntiAnalysis && f.Severity == policy.Critical && f.Subject == "canary env:GITHUB_TOKEN sent" {
					got = &fs[i]
				}
			}
			if got == nil {
				t.Errorf("no critical anti-analysis finding about the canary sent only untraced; findings:")
				logFindings(t, fs)
				return
			}
			if !strings.Contains(got.Evidence, "traced run: nothing") || !strings.Contains(got.Evidence, "dormant.fixture.example") {
				t.Errorf("evidence lacks both observations: %s", got.Evidence)
			}
			if !policy.Failed(fs, policy.High) {
				t.Errorf("verdict pass at fail-on high")
			}
		})
	}
}

// TestWitnessControl: the same theft done unconditionally is the usual
// critical canary finding, and no difference between the runs.
func TestWitnessControl(t *testing.T) {
	t.Parallel()
	man := witnessRun(t, "fp-none")
	fs := findings(man)
	if !hasFinding(fs, policy.KindCanary, policy.Critical, "env:GITHUB_TOKEN") {
		t.Errorf("no critical canary finding; findings:")
		logFindings(t, fs)
	}
	if len(man.Witness) != 0 {
		t.Errorf("witness differences for a server that steals in both runs: %+v", man.Witness)
	}
}

// TestWitnessCleanStable: a clean server gives identical manifests with
// the witness on, run after run, and no differences.
func TestWitnessCleanStable(t *testing.T) {
	var first []byte
	for i := range 2 {
		man := witnessRun(t)
		if len(man.Witness) != 0 {
			t.Errorf("run %d: witness differences for a clean server: %+v", i, man.Witness)
		}
		man.Run = m.Run{}
		b, err := m.Encode(man)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Errorf("manifests differ between runs:\n%s\n---\n%s", first, b)
		}
	}
}
