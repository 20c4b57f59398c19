package audit_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var incompleteFixture = filepath.Join("..", "..", "testdata", "fixtures", "incomplete-server")

// judgeDefault is the verdict under the default policy, with its reasons.
func judgeDefault(man *m.Manifest) *diff.Result {
	return diff.Judge(man, policy.Policy{FailOn: policy.DefaultFailOn})
}

// TestIncompleteIsNotPass: a server that exits before the opening,
// refuses it, or fails every call was not audited, and its verdict says
// so with the real reason; the same server answering (the control) passes.
func TestIncompleteIsNotPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, verdict, reason string
	}{
		{"ok", m.VerdictPass, ""},
		{"exit-early", m.VerdictIncomplete, "exited before the opening (exit code 1)"},
		{"refuse", m.VerdictIncomplete, "answered the opening with an error: Unsupported protocol version"},
		{"fail-all", m.VerdictIncomplete, "every tool call failed (4 backend unreachable)"},
		{"fail-text", m.VerdictIncomplete, "every tool call failed"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			man := run(t, audit.Options{Target: incompleteFixture, Args: []string{tc.mode}})
			r := judgeDefault(man)
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (outcome %+v, incomplete %q)", r.Verdict, tc.verdict, man.Outcome, r.Incomplete)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(r.Incomplete, "\n"), tc.reason) {
				t.Errorf("reasons %q lack %q", r.Incomplete, tc.reason)
			}
			if tc.mode == "refuse" && time.Since(start) > 25*time.Second {
				t.Errorf("a refused opening took %v: it is not a timeout", time.Since(start))
			}
			if man.Coverage == nil || !strings.HasPrefix(diff.Judge(man, policy.Policy{}).Coverage, "exercised: ") {
				t.Errorf("coverage %+v", man.Coverage)
			}
		})
	}
}

// TestCallsCannotBeStarved: tools that never answer, listed before a
// harmful one, cannot push it out of the call budget: it is called and
// the audit fails on what it did. The same slow tools before a harmless
// tool (the control) pass, each slow one listed as timed out.
func TestCallsCannotBeStarved(t *testing.T) {
	t.Parallel()
	// Eight tools that hang at 10 s a call would use 80 s: a budget of 30 s
	// left nothing for the ninth before the budget was shared.
	timing := audit.TimingOptions{CallBudget: 30 * time.Second}
	bad := run(t, audit.Options{Target: incompleteFixture, Args: []string{"slow=8"}, Timing: timing})
	if !hasFinding(findings(bad), policy.KindCanary, policy.Critical, "id_rsa") {
		t.Errorf("the harmful tool behind slow ones was not judged; calls %+v", bad.Calls)
	}
	if r := judgeDefault(bad); r.Verdict != m.VerdictFail {
		t.Errorf("verdict %s", r.Verdict)
	}
	ok := run(t, audit.Options{Target: incompleteFixture, Args: []string{"slow-benign=8"}, Timing: timing})
	r := judgeDefault(ok)
	if r.Verdict == m.VerdictFail {
		t.Errorf("the control fails: %+v", r.Findings)
	}
	called := 0
	for _, c := range ok.Calls {
		if c.Name == "note" && c.Outcome == m.CallOK {
			called++
		}
	}
	if called == 0 || !strings.Contains(r.Coverage, "timeout") {
		t.Errorf("the last tool was not called (%d) or the timeouts not counted: %s", called, r.Coverage)
	}
}

// TestReleaseThatStopsRunning: a release that no longer runs where its
// baseline ran is a high finding in the comparison, and its verdict is not
// pass; the same release still running (the control) passes.
func TestReleaseThatStopsRunning(t *testing.T) {
	t.Parallel()
	base := run(t, audit.Options{Target: incompleteFixture, Args: []string{"ok"}})
	gone := run(t, audit.Options{Target: incompleteFixture, Args: []string{"exit-early"}})
	r := diff.Compare(base, gone, policy.Policy{FailOn: policy.DefaultFailOn})
	if r.Verdict != m.VerdictFail || !hasFinding(r.Findings, diff.KindCoverage, policy.High, "crashed") {
		t.Errorf("verdict %s, findings %+v", r.Verdict, r.Findings)
	}
	again := run(t, audit.Options{Target: incompleteFixture, Args: []string{"ok"}})
	if r := diff.Compare(base, again, policy.Policy{FailOn: policy.DefaultFailOn}); r.Verdict != m.VerdictPass {
		t.Errorf("control: verdict %s, findings %+v", r.Verdict, r.Findings)
	}
}
