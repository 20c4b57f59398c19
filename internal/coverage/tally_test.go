package coverage

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestTally: every call counts (a skipped one as not ok), tools count by
// distinct name per server, and the failed calls are summed by class
// across servers.
func TestTally(t *testing.T) {
	a := &m.Manifest{Tools: []m.Tool{{Name: "read"}, {Name: "write"}}, Calls: []m.Call{
		{Kind: "tool", Name: "read", Outcome: m.CallOK},
		{Kind: "tool", Name: "read", Outcome: m.CallOK, Set: "optional"},
		{Kind: "tool", Name: "write", Outcome: m.CallError, Detail: "connect ECONNREFUSED 192.0.2.1:5432"},
	}}
	b := &m.Manifest{Tools: []m.Tool{{Name: "x"}}, Calls: []m.Call{
		{Kind: "tool", Name: "x", Outcome: m.CallError, Detail: "fetch failed"},
		{Kind: "tool", Name: "x", Outcome: m.CallSkipped, Detail: "call budget used up"},
		{Kind: "prompt", Name: "p", Outcome: m.CallOK},
	}}
	var tl Tally
	tl.Add(a)
	tl.Add(b)
	tl.Add(nil)
	want := "calls: 3 of 6 ok (50%); tools: 1 of 3 offered answered ok at least once (33%); failed calls: 2 backend unreachable, 1 skipped budget"
	if got := tl.String(); got != want {
		t.Errorf("tally:\n got %s\nwant %s", got, want)
	}
	if tl.Servers != 2 {
		t.Errorf("servers %d", tl.Servers)
	}
	var empty Tally
	if got := empty.String(); got != "calls: 0 of 0 ok (-); tools: 0 of 0 offered answered ok at least once (-)" {
		t.Errorf("empty: %s", got)
	}
}
