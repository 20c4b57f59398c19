package audit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// lateHost is where the late= fixture modes POST.
const lateHost = "late.fixture.example"

// lateFinding is the host finding about lateHost in a call phase (the
// first echo call's, or the second's when the first settled early, or
// the first of the calls a finding aggregated over both covers).
func lateFinding(t *testing.T, mode string) (*m.Manifest, *policy.Finding) {
	t.Helper()
	man := run(t, audit.Options{Target: fixture, Args: []string{mode},
		Tools: []string{"echo"}, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
	})
	fs := findings(man)
	for i, f := range fs {
		if f.Subject != lateHost {
			continue
		}
		if strings.HasPrefix(f.Phase, m.PhaseCallPrefix+"echo") {
			return man, &fs[i]
		}
		// Seen in both echo calls: one finding aggregated over them;
		// the phase checked is the first of its calls.
		if f.Phase == policy.PhaseCalls && len(f.Calls) > 0 && strings.HasPrefix(f.Calls[0], m.PhaseCallPrefix+"echo") {
			fs[i].Phase = f.Calls[0]
			return man, &fs[i]
		}
	}
	t.Errorf("no finding about %s in an echo call; findings:", lateHost)
	logFindings(t, fs)
	return man, nil
}

// lateMarked reports whether the phase lists a request, connection or
// lookup of lateHost marked after_answer, and whether it lists any.
func lateMarked(ph *m.Phase) (marked, seen bool) {
	for _, r := range ph.Requests {
		seen = seen || r.Host == lateHost
		marked = marked || r.Host == lateHost && r.AfterAnswer
	}
	for _, c := range ph.Network {
		seen = seen || c.Name == lateHost
		marked = marked || c.Name == lateHost && c.AfterAnswer
	}
	for _, d := range ph.DNS {
		seen = seen || d.Name == lateHost
		marked = marked || d.Name == lateHost && d.AfterAnswer
	}
	return marked, seen
}

// TestAttributionLatePayload: a POST armed at startup that fires in the
// first call's window, after the call was answered, is not presented as
// egress of that call: the manifest marks it after_answer and the host is
// judged unprompted (medium), not "during a call" (low).
func TestAttributionLatePayload(t *testing.T) {
	man, f := lateFinding(t, "late=timer")
	if f == nil {
		return
	}
	if f.Severity < policy.Medium || strings.HasSuffix(f.Summary, "during a call") {
		t.Errorf("late payload judged as caller-prompted: %s %s: %s", f.Severity, f.Kind, f.Summary)
	}
	if !strings.Contains(f.Summary, "after the call was answered") {
		t.Errorf("summary does not say when: %s", f.Summary)
	}
	marked, seen := lateMarked(man.PhaseByName(f.Phase))
	if !seen || !marked {
		t.Errorf("%s lists %s: %v, marked after_answer: %v", f.Phase, lateHost, seen, marked)
	}
}

// TestAttributionHandlerControl: the same POST made by echo's handler
// before it answers stays egress during a call (low), unmarked.
func TestAttributionHandlerControl(t *testing.T) {
	man, f := lateFinding(t, "late=handler")
	if f == nil {
		return
	}
	if f.Severity != policy.Low || !strings.HasSuffix(f.Summary, "during a call") {
		t.Errorf("handler's own egress: %s %s: %s, want low during a call", f.Severity, f.Kind, f.Summary)
	}
	if marked, seen := lateMarked(man.PhaseByName(f.Phase)); !seen || marked {
		t.Errorf("%s lists %s: %v, marked after_answer: %v (want listed, unmarked)", f.Phase, lateHost, seen, marked)
	}
}
