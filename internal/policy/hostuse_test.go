package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestHostUses(t *testing.T) {
	man := &m.Manifest{
		Target: m.Target{Service: []string{"vendor.example"}, Supplied: []string{"db.internal.test"}},
		Calls:  []m.Call{{Phase: "call:fetch", Kind: "tool", Name: "fetch", Args: []byte(`{"url":"https://docs.example/page"}`)}},
		Phases: []m.Phase{
			{Name: m.PhaseStartup,
				DNS:     []m.DNSQuery{{Name: "api.vendor.example", Type: "A"}, {Name: "db.internal.test", Type: "A"}, {Name: "Stats.Tracker.Example.", Type: "A"}},
				Network: []m.Connection{{Proto: "tcp", Op: "connect", Address: "192.0.2.7", Port: 443, Category: m.ConnEgress}}},
			{Name: "call:fetch",
				Requests: []m.Request{{Scheme: "https", Name: "docs.example", Method: "GET", Host: "docs.example", Path: "/page"}},
				Network:  []m.Connection{{Proto: "tcp", Op: "connect", Name: "cdn.other.example", Port: 443, Category: m.ConnEgress}, {Proto: "tcp", Op: "listen", Address: "0.0.0.0", Port: 8080, Category: m.ConnListener}},
				Canaries: []m.CanaryHit{{Canary: "env:AWS_SECRET_ACCESS_KEY", How: m.HowSent, Evidence: "https POST cdn.other.example/up"}}},
			{Name: m.PhaseIdle, DNS: []m.DNSQuery{{Name: "docs.example", Type: "A"}}},
		},
	}
	got := HostUses(man)
	want := []HostUse{
		{Host: "192.0.2.7", Relation: RelationUnexpected, Phases: []string{"startup"}},
		{Host: "cdn.other.example", Relation: RelationUnexpected, Calls: 1, Phases: []string{"call:fetch"}}, // received a canary
		// Supplied by the call, but looked up again unprompted at idle.
		{Host: "docs.example", Relation: RelationUnexpected, Calls: 1, Phases: []string{"call:fetch", "idle"}},
		{Host: "stats.tracker.example", Relation: RelationUnexpected, Phases: []string{"startup"}},
		{Host: "api.vendor.example", Relation: RelationService, Phases: []string{"startup"}},
		{Host: "db.internal.test", Relation: RelationSupplied, Phases: []string{"startup"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HostUses (-want +got):\n%s", d)
	}
	man.Phases = man.Phases[:2]
	man.Phases[1].Canaries = nil
	for _, u := range HostUses(man) {
		if u.Host == "cdn.other.example" && u.Relation != RelationThirdParty {
			t.Errorf("a host contacted during a call, named by nobody: %s, want third-party", u.Relation)
		}
		if u.Host == "docs.example" && u.Relation != RelationSupplied {
			t.Errorf("a host from the call's arguments: %s, want supplied", u.Relation)
		}
	}
}
