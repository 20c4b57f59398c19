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

// TestSuggestAllowIsStable: the suggestion matches the next run too (a
// time-stamped log name becomes a pattern) and never allows a shell.
func TestSuggestAllowIsStable(t *testing.T) {
	man := &m.Manifest{Outcome: m.Outcome{Status: m.StatusOK}, Phases: []m.Phase{{Name: m.PhaseInstall,
		Files: []m.FileAccess{{Path: "~/.npm/_logs/2026-12-01T10_20_30_123Z-debug-0.log", Access: m.AccessWrite, Category: m.CatHome, Result: m.ResultOK}},
	}, {Name: m.PhaseStartup,
		Processes: []m.Process{{Path: "/bin/sh", Argv: []string{"sh", "-c", "uname -a"}, Shell: true, Result: m.ResultOK},
			{Path: "/usr/bin/git", Argv: []string{"git", "status"}, Result: m.ResultOK}},
	}}}
	got := SuggestAllow(man, Evaluate(man, Policy{}))
	want := Allow{Paths: []string{"~/.npm/_logs/*-debug-0.log"}, Processes: []string{"/usr/bin/git"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suggestion (-want +got):\n%s", diff)
	}
	if !(Allow{Paths: got.Paths}).path("~/.npm/_logs/2026-12-02T08_00_00_000Z-debug-0.log") {
		t.Error("the suggested pattern does not match the next run's log")
	}
}
