package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestSummary(t *testing.T) {
	code := 1
	man := &m.Manifest{
		Target:  m.Target{Ecosystem: "npm", Name: "evil-mcp", Version: "1.0.16", Entry: []string{"node", "<pkg>/index.js"}},
		Outcome: m.Outcome{Status: m.StatusCrashed, ExitCode: &code, Reason: "the server exited on its own"},
		Server:  m.ServerInfo{Name: "evil", Version: "1.0.16", ProtocolVersion: "2025-06-18"},
		Tools:   []m.Tool{{Name: "send_email"}, {Name: "list_templates"}},
		Phases: []m.Phase{
			{Name: m.PhaseStartup,
				FileSummary: []m.FileCount{{Category: m.CatOwnPackage, Access: m.AccessRead, Result: m.ResultOK, Paths: 40}, {Category: m.CatRuntime, Access: m.AccessRead, Result: m.ResultOK, Paths: 12}},
				Files:       []m.FileAccess{{Path: "~/.npmrc", Access: m.AccessRead, Category: m.CatCanary, Result: m.ResultOK}},
				Processes:   []m.Process{{Path: "/usr/local/bin/node", Argv: []string{"node", "<pkg>/index.js"}}},
				Canaries:    []m.CanaryHit{{Canary: "file:~/.npmrc", How: "file-read", Evidence: "~/.npmrc"}},
				DNS:         []m.DNSQuery{{Name: "collect.evil.example", Type: "A", Server: "127.0.0.1"}},
			},
			{Name: m.PhaseIdle},
		},
		Run: m.Run{StderrTail: "booting\nError: boom\n"},
	}
	var buf bytes.Buffer
	fs := policy.Evaluate(man, policy.Policy{})
	Summary(&buf, man, fs, policy.Policy{FailOn: policy.High})
	golden(t, "summary.txt", buf.Bytes())
}

// TestSummaryUnstable: what differed between the runs of --runs is shown,
// each entry kept for carrying a finding listed.
func TestSummaryUnstable(t *testing.T) {
	man := &m.Manifest{
		Outcome: m.Outcome{Status: m.StatusOK},
		Phases:  []m.Phase{{Name: m.PhaseStartup}},
		Run: m.Run{
			Unstable:     []string{`call:echo dns in 1 of 2 runs: {"name":"cdn.example","type":"A"}`},
			UnstableKept: []string{`startup canaries in 1 of 2 runs: {"canary":"env:GITHUB_TOKEN","how":"sent"}`},
		},
	}
	var buf bytes.Buffer
	Summary(&buf, man, nil, policy.Policy{FailOn: policy.High})
	golden(t, "summary-unstable.txt", buf.Bytes())
}

// TestSummaryPhases: calls that did the same thing share one line, calls
// that did nothing are counted, and only a canary the server was never
// given is a CANARY HIT: the credential it was given and used, and the
// decoy .env dotenv reads, are named for what they are.
func TestSummaryPhases(t *testing.T) {
	man := &m.Manifest{Target: m.Target{Ecosystem: "npm", Name: "api-mcp", Version: "2.0.0"}, Outcome: m.Outcome{Status: m.StatusOK},
		Phases: []m.Phase{{Name: m.PhaseStartup, Canaries: []m.CanaryHit{
			{Canary: "file:<workspace>/.env", How: m.HowFileRead, Evidence: "<workspace>/.env"}}}}}
	for i := range 32 {
		man.Phases = append(man.Phases, m.Phase{Name: fmt.Sprintf("call:tool_%02d", i),
			DNS:      []m.DNSQuery{{Name: "api.vendor.example", Type: "A"}},
			Canaries: []m.CanaryHit{{Canary: "env:VENDOR_API_KEY", How: m.HowSent, Given: true, Evidence: "https POST api.vendor.example/v1"}}})
	}
	man.Phases = append(man.Phases, m.Phase{Name: "call:quiet"}, m.Phase{Name: "call:thief",
		Canaries: []m.CanaryHit{{Canary: "file:~/.npmrc", How: m.HowFileRead, Evidence: "~/.npmrc"}}}, m.Phase{Name: m.PhaseIdle})
	var buf bytes.Buffer
	Summary(&buf, man, nil, policy.Policy{FailOn: policy.High})
	out := buf.String()
	for _, want := range []string{
		"  startup: read the workspace .env\n",
		"  32 calls (call:tool_00, call:tool_01, call:tool_02, +29 more): looked up api.vendor.example; 1 use of the credential it was given\n",
		"  call:thief: 1 CANARY HIT\n",
		"  (1 call with no observed side effects)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "CANARY HIT"); n != 1 {
		t.Errorf("%d CANARY HIT lines, want 1 (the decoy read only)", n)
	}
}
