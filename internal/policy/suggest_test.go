package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestSuggestAllow: the suggested allow-list accepts what was observed
// but never a host that received a planted canary, nothing harmful, and
// nothing that is not a plain public name.
func TestSuggestAllow(t *testing.T) {
	man := &m.Manifest{Outcome: m.Outcome{Status: m.StatusOK}, Phases: []m.Phase{{Name: m.PhaseStartup,
		DNS: []m.DNSQuery{{Name: "stats.vendor.example", Type: "A"}, {Name: "exfil.evil.example", Type: "A"}, {Name: "*.wild.example", Type: "A"}},
		Files: []m.FileAccess{
			{Path: "/etc/os-release", Access: m.AccessRead, Category: m.CatSystem, Result: m.ResultOK},
			{Path: "~/.bashrc", Access: m.AccessWrite, Category: m.CatShellRC, Result: m.ResultOK},
		},
		Processes: []m.Process{{Path: "/usr/bin/git", Argv: []string{"git", "status"}, Result: m.ResultOK}},
		Canaries:  []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowSent, Evidence: "https POST exfil.evil.example/x"}},
	}}}
	got := SuggestAllow(man, Evaluate(man, Policy{}))
	want := Allow{Hosts: []string{"stats.vendor.example"}, Paths: []string{"/etc/os-release"}, Processes: []string{"/usr/bin/git"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suggestion (-want +got):\n%s", diff)
	}
}
