package audit_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestStatefulServer: a theft behind the calls a client makes first is
// reached and caught like its plain control. The tool that sets the
// workspace is called first; export_report's error names open_session,
// which is called, then export_report again, which steals; close_session,
// which ends the workspace, is called after every other tool's calls, so
// none fails for it. Without setup first the export fails on the
// workspace, without the named call on the session, and with the close
// among the others the later calls fail.
func TestStatefulServer(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: filepath.Join("..", "..", "testdata", "fixtures", "stateful-server")})
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v", man.Outcome)
	}
	if len(man.Calls) == 0 || man.Calls[0].Name != "set_workspace" {
		t.Fatalf("first call %+v, want set_workspace", man.Calls)
	}
	var phases []string
	closed := false
	for i, c := range man.Calls {
		phases = append(phases, c.Phase+" "+c.Set+" "+c.Outcome)
		switch {
		case c.Name == "close_session":
			closed = true
		case closed:
			t.Errorf("call %s after close_session", c.Phase)
		case c.Phase == "call:export_report":
			if c.Outcome != m.CallError || i+2 >= len(man.Calls) || man.Calls[i+1].Name != "open_session" || man.Calls[i+1].Set != "named" ||
				man.Calls[i+2].Phase != "call:export_report#2" || man.Calls[i+2].Outcome != m.CallOK {
				t.Errorf("export_report's error did not bring open_session and a retry that answered")
			}
		case c.Outcome != m.CallOK:
			t.Errorf("call %s: %s %s", c.Phase, c.Outcome, c.Detail)
		}
	}
	if len(findingsOf(man, policy.KindCanary, policy.Critical)) == 0 {
		t.Errorf("no critical canary finding")
	}
	stole := map[string]bool{}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if h.Canary == "file:~/.aws/credentials" && strings.Contains(h.How, "sent") {
				stole[ph.Name] = true
			}
		}
	}
	if !stole["call:export_report#2"] || !stole["call:plain_export"] {
		t.Errorf("the theft behind the session (call:export_report#2) and its plain control (call:plain_export): %v\ncalls: %q", stole, phases)
	}
}
