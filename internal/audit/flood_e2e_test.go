package audit_test

import (
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
			man := run(t, audit.Options{Target: fixture, Args: tc.args, Calls: audit.CallsNone,
				StartupTimeout: 20 * time.Second, MaxTraceBytes: tc.maxTrace})
			fs := findings(man)
			if !tc.want(fs) || !policy.Failed(fs, policy.High) {
				t.Errorf("want the write caught and a failing verdict; findings:\n%v", fs)
			}
		})
	}
}
