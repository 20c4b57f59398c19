package audit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestFloodCannotHide: a server that floods the trace with failed opens
// before writing ~/.bashrc, so that the per-phase list or the trace's size
// limit drops the write, still fails; so does the same write without the
// flood (the control).
func TestFloodCannotHide(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		maxTrace int64
		want     func(fs []policy.Finding) bool
	}{
		{"control", []string{"bashrc"}, 0, func(fs []policy.Finding) bool {
			return hasFinding(fs, policy.KindPersistence, policy.Critical, "~/.bashrc")
		}},
		// Failed lookups no rule judges are counted, not listed: the flood
		// never reaches the per-phase list, and the write is there.
		{"flood of failed lookups", []string{"flood-probes", "bashrc"}, 0, func(fs []policy.Finding) bool {
			return hasFinding(fs, policy.KindPersistence, policy.Critical, "~/.bashrc")
		}},
		{"flood cuts the trace", []string{"flood-probes", "bashrc"}, 256 << 10, func(fs []policy.Finding) bool {
			return hasFinding(fs, policy.KindTrace, policy.High, "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: tc.args, Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{MaxTraceBytes: tc.maxTrace}, Timing: audit.TimingOptions{StartupTimeout: 20 * time.Second}})
			fs := findings(man)
			if !tc.want(fs) || !policy.Failed(fs, policy.High) {
				t.Errorf("want the write caught and a failing verdict; findings:\n%v", fs)
			}
		})
	}
}

// TestNoiseCannotCutTheTrace: 60,000 failed lookups of temporary paths
// (about 20 MB of trace) are noise: past the first 20,000 they are
// counted, not stored, so the trace stays under a 16 MiB limit, a write to
// ~/.bashrc after them is caught, and a server that only makes the noise
// is not failed for a cut trace.
func TestNoiseCannotCutTheTrace(t *testing.T) {
	for _, tc := range []struct {
		args []string
		fail bool
	}{{[]string{"flood-big", "bashrc"}, true}, {[]string{"flood-big"}, false}} {
		man := run(t, audit.Options{Target: fixture, Args: tc.args, Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{MaxTraceBytes: 16 << 20}, Timing: audit.TimingOptions{StartupTimeout: time.Minute}})
		fs := findings(man)
		if hasFinding(fs, policy.KindTrace, policy.High, "") {
			t.Errorf("%v: the noise cut the trace: %v", tc.args, man.Run.Notes)
		}
		if tc.fail != hasFinding(fs, policy.KindPersistence, policy.Critical, "~/.bashrc") || tc.fail != policy.Failed(fs, policy.High) {
			t.Errorf("%v: want fail %v, findings %v", tc.args, tc.fail, fs)
		}
		noted := false
		for _, n := range man.Run.Notes {
			noted = noted || strings.Contains(n, "failed lookups of temporary")
		}
		if !noted {
			t.Errorf("%v: no note about the noise left out: %v", tc.args, man.Run.Notes)
		}
	}
}
