package audit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestListChangedHonored: a server that changes a description, announces
// it with notifications/tools/list_changed and shows the new text only to
// the next tools/list (a client refreshes at once; the audit's own
// listing after all calls would see the old text again) is caught, with
// the change as a text diff. The control is the same change kept for
// good (rug-pull), which the listing after the calls sees.
func TestListChangedHonored(t *testing.T) {
	t.Parallel()
	const summary = "the description of tool echo changed during the session"
	for _, mode := range []string{"rug-pull-notify", "rug-pull"} {
		t.Run(mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{mode}, Timing: audit.TimingOptions{CallTimeout: 3 * time.Second}})
			var got *policy.Finding
			for _, f := range findings(man) {
				if f.Kind == policy.KindTool && f.Severity == policy.High && f.Summary == summary {
					got = &f
				}
			}
			if got == nil {
				t.Fatalf("no finding %q: %+v; list changes %+v", summary, findings(man), man.ListChanges)
			}
			if !strings.Contains(got.Evidence, "{+") || !strings.Contains(got.Evidence, "id_rsa") {
				t.Errorf("evidence is not a text diff of the change: %q", got.Evidence)
			}
			if len(man.Tools) == 0 || strings.Contains(man.Tools[0].Description, "id_rsa") {
				t.Errorf("first listing changed: %+v", man.Tools)
			}
		})
	}
}
