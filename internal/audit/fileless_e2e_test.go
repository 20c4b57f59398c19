package audit_test

import (
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestFilelessExec: a program run through /proc/self/fd/N (no path on
// disk) is critical; the same program run by its path is an ordinary
// process (the control).
func TestFilelessExec(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: fixture, Args: []string{"fd-exec"}, Calls: audit.CallsNone, Timing: audit.TimingOptions{StartupTimeout: 20 * time.Second}})
	fs := findings(man)
	if !hasFinding(fs, policy.KindEscape, policy.Critical, "fileless_exec") || !policy.Failed(fs, policy.High) {
		t.Errorf("fileless exec not caught: %v", fs)
	}
	ctl := findings(run(t, audit.Options{Target: fixture, Args: []string{"plain-exec"}, Calls: audit.CallsNone, Timing: audit.TimingOptions{StartupTimeout: 20 * time.Second}}))
	if hasFinding(ctl, policy.KindEscape, policy.Critical, "fileless_exec") {
		t.Errorf("an ordinary exec counted as fileless: %v", ctl)
	}
	if !hasFinding(ctl, policy.KindProcess, policy.Low, "/bin/true") {
		t.Errorf("the control's process is not recorded: %v", ctl)
	}
}
