package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestRugPullScenarios publishes two versions of fixture servers to a local
// registry, records the first as baseline, discovers the second as a new
// release, and checks that the report names exactly the change.
func TestRugPullScenarios(t *testing.T) {
	testenv.Image(t)
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	scenarios := map[string][2][]string{
		"rug-host": {{"mail"}, {"mail", "track"}},       // a new host, only during one tool call
		"rug-bcc":  {{"mail"}, {"mail", "mail-bcc"}},    // same host, payload gains a hidden recipient
		"rug-desc": {{"mail"}, {"mail", "inject-echo"}}, // a tool description gains an injection
		"rug-same": {{"mail"}, {"mail"}},                // identical behavior
	}
	var cfg strings.Builder
	cfg.WriteString("fail_on: high\nidle: {quiet: 500ms, min: 200ms}\nservers:\n")
	for name, v := range scenarios {
		reg.PublishFixture(t, fixture, name, "1.0.0", v[0]...)
		reg.PublishFixture(t, fixture, name, "1.0.1", v[1]...)
		cfg.WriteString("  " + name + ":\n    target: npm:" + name + "\n    range: \"^1.0.0\"\n")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "mcp-audit.yml")
	os.WriteFile(cfgPath, []byte(cfg.String()), 0o644)
	reg.Use(t)
	var errb bytes.Buffer
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		errb.Reset()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		code := Run(ctx, args, nil, &out, &errb, os.Getenv)
		if code == ExitUsage || code == ExitRuntime {
			t.Fatalf("mcp-audit %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
		return out.String(), code
	}

	// Baselines for 1.0.0.
	for name := range scenarios {
		out, code := run("baseline", "update", "--config", cfgPath, "--server", name, "--version", "1.0.0")
		if code != 0 || !strings.Contains(out, filepath.Join("npm", name, "1.0.0.json")) {
			t.Fatalf("baseline update %s: %d %s%s", name, code, out, errb.String())
		}
	}
	// Discovery finds 1.0.1 of each.
	out, _ := run("discover", "--config", cfgPath)
	for name := range scenarios {
		if !strings.Contains(out, name+"\t"+name+"\t1.0.1\tbaseline 1.0.0") {
			t.Errorf("discover did not list %s 1.0.1:\n%s", name, out)
		}
	}
	// Check every new release.
	report1 := filepath.Join(dir, "report.json")
	_, code := run("check", "--config", cfgPath, "--new-releases", "--format", "json", "-o", report1)
	if code != ExitFindings {
		t.Errorf("check exit %d, want %d (rug pulls fail the policy)", code, ExitFindings)
	}
	data, _ := os.ReadFile(report1)
	var rep struct {
		Reports []report.DiffReport `json:"reports"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range rep.Reports {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Server, r.Error)
		}
		if r.Result.New.Version != "1.0.1" || r.Result.Old.Version != "1.0.0" {
			t.Errorf("%s compared %s with %s", r.Server, r.Result.New.Version, r.Result.Old.Version)
		}
		for _, f := range r.Result.Findings {
			got[r.Server] = append(got[r.Server], f.Severity.String()+" "+f.Kind+" "+f.Phase+" "+f.Subject+" | "+f.Evidence)
		}
	}
	expect := map[string][]string{
		// echo is called twice: the host is a finding of the first call, or
		// one aggregated over both when the second looks it up again (its
		// resolver may have cached the name); the host is checked below.
		"rug-host": {"high host call"},
		"rug-bcc": {"high payload call:send_email POST api.mail.fixture.example/email body field Bcc | Bcc",
			"high payload call:send_email POST api.mail.fixture.example/email email in payload archive@collector.example | archive@collector.example"},
		"rug-desc": {"high tool  tool echo", "medium tool  tool echo"},
	}
	for name, want := range expect {
		if len(got[name]) != len(want) {
			t.Errorf("%s findings:\n  got  %q\n  want %q", name, got[name], want)
			continue
		}
		for i := range want {
			if !strings.HasPrefix(got[name][i], want[i]) {
				t.Errorf("%s finding %d:\n  got  %q\n  want %q…", name, i, got[name][i], want[i])
			}
		}
	}
	if h := got["rug-host"]; len(h) == 1 && !strings.Contains(h[0], " track.fixture.example |") {
		t.Errorf("rug-host finding is not about track.fixture.example: %q", h[0])
	}
	if len(got["rug-same"]) != 0 {
		t.Errorf("identical versions produced findings: %q", got["rug-same"])
	}
	for _, r := range rep.Reports {
		if r.Server == "rug-same" && (len(r.Result.Changes) != 0 || r.Result.Verdict != "pass") {
			t.Errorf("identical versions: changes %+v", r.Result.Changes)
		}
	}
}
