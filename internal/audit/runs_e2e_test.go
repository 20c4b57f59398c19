package audit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestRunsKeepTheft: --runs 2 intersects runs to remove noise. A server
// that sends a canary to a new random host each run must not disappear
// in the intersection (the trick); the same theft to a fixed host is the
// control. Both are critical, and the random one is listed as unstable
// but kept.
func TestRunsKeepTheft(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"random", "fixed"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			res, err := audit.RunStable(ctx, deps(t), harnessOptions(audit.Options{Target: fixture, Args: []string{"steal-host=" + how},
				Calls: audit.CallsNone, Timing: audit.TimingOptions{IdleQuiet: time.Second, IdleMin: 500 * time.Millisecond}}), 2)
			if err != nil {
				t.Fatal(err)
			}
			man := res.Manifest
			if !canaryIn(findings(man), m.PhaseStartup) {
				t.Errorf("theft lost in --runs 2: findings %+v\nunstable %q", findings(man), man.Run.Unstable)
			}
			if !hasSeverity(findings(man), policy.Critical) {
				t.Errorf("no critical finding: %+v", findings(man))
			}
			kept := strings.Join(man.Run.UnstableKept, "\n")
			if how == "random" && !strings.Contains(kept, "exfil.example") {
				t.Errorf("random host not listed as unstable but kept: %q", kept)
			}
			if how == "fixed" && kept != "" {
				t.Errorf("fixed host listed as unstable: %q", kept)
			}
		})
	}
}

func hasSeverity(fs []policy.Finding, s policy.Severity) bool {
	for _, f := range fs {
		if f.Severity == s {
			return true
		}
	}
	return false
}
