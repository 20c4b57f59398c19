package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestReportInChromium opens the generated report in real headless
// Chromium: it must run without console errors, draw something, show the
// expected cards and hosts, apply filters from the URL fragment, and keep
// hostile manifest text as text.
func TestReportInChromium(t *testing.T) {
	testenv.Chromium(t)
	out := t.TempDir()
	evil := `<img src=x onerror="document.body.dataset.pwned=1">`

	clean := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "clean-server", Version: "1.0.0"},
		Outcome: m.Outcome{Status: m.StatusOK}, Phases: []m.Phase{{Name: m.PhaseStartup}, {Name: m.PhaseIdle}}}
	writeDone(t, out, "clean", clean, policy.Evaluate(clean, policy.Policy{FailOn: policy.DefaultFailOn}))

	bad := sample("@evil/pkg", "2.0.0")
	bad.Calls = []m.Call{{Phase: "call:send", Kind: "tool", Name: "send", Args: []byte(`{"to":"a@b.example"}`), Outcome: "ok"}}
	bad.Phases = append(bad.Phases, m.Phase{Name: "call:send",
		Canaries: []m.CanaryHit{{Canary: "~/.aws/credentials", How: "sent", Evidence: "POST collect.evil.example/up"}},
		Network:  []m.Connection{{Proto: "tcp", Op: "connect", Name: "collect.evil.example", Port: 443, Category: "egress"}}})
	fs := policy.Evaluate(bad, policy.Policy{FailOn: policy.DefaultFailOn})
	fs = append(fs, policy.Finding{Severity: policy.High, Kind: policy.KindTool, Subject: "tool send", Summary: "tool text aimed at the model " + evil, Evidence: evil})
	for i := range 6 {
		fs = append(fs, policy.Finding{Severity: policy.Low, Kind: policy.KindProcess, Phase: "startup", Subject: fmt.Sprint("/bin/p", i), Summary: "started a process"})
	}
	writeDone(t, out, "evil "+evil, bad, fs)

	writeRecord(out, Record{Server: "broken", Target: "npm:broken@1.0.0", Status: StatusFailed, Reason: "npm install --ignore-scripts: 404 " + evil})
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(out, "report.html")

	p := testenv.LoadPage(t, report, "", true)
	if d := os.Getenv("MCP_AUDIT_KEEP_SCREENSHOT"); d != "" {
		os.WriteFile(d, p.Screenshot, 0o644)
	}
	if len(p.Console) != 0 {
		t.Errorf("console output (errors or CSP violations): %q", p.Console)
	}
	if !strings.Contains(p.DOM, `data-ready="1"`) {
		t.Fatalf("the page script did not finish:\n%s", p.DOM)
	}
	if strings.Contains(p.DOM, "pwned") && strings.Contains(p.DOM, `data-pwned`) {
		t.Error("hostile manifest text ran as markup")
	}
	if strings.Contains(p.DOM, "<img") {
		t.Error("hostile manifest text became an element")
	}
	if n := testenv.Colors(t, p.Screenshot); n < 8 {
		t.Errorf("screenshot has %d colors; the page looks blank", n)
	}
	if got := attr(p.DOM, "data-shown"); got != "3" {
		t.Errorf("all three servers should show by default, shown=%s", got)
	}
	for _, want := range []string{`data-server="clean"`, `data-server="broken"`, "collect.evil.example:443", "call:send",
		"not audited", "policy fail", "canary", `id="hosts"`, "3 more findings"} {
		if !strings.Contains(p.DOM, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}
	if e, b, c := strings.Index(p.DOM, `data-server="evil`), strings.Index(p.DOM, `data-server="broken"`), strings.Index(p.DOM, `data-server="clean"`); !(e < b && b < c) {
		t.Errorf("cards are not worst first: evil at %d, broken at %d, clean at %d", e, b, c)
	}
	// Filters from the fragment: critical findings only, then one kind.
	for frag, want := range map[string]string{"sev=critical": "1", "sev=any&status=not+audited": "1", "sev=low&kind=host": "1", "q=clean-server": "1", "sev=any&q=no-such-thing": "0"} {
		p := testenv.LoadPage(t, report, frag, false)
		if got := attr(p.DOM, "data-shown"); got != want {
			t.Errorf("#%s: %s cards shown, want %s", frag, got, want)
		}
		if len(p.Console) != 0 {
			t.Errorf("#%s: console output %q", frag, p.Console)
		}
	}
}

func attr(dom, name string) string {
	mm := regexp.MustCompile(fmt.Sprintf(`<body[^>]*\s%s="([^"]*)"`, regexp.QuoteMeta(name))).FindStringSubmatch(dom)
	if mm == nil {
		return ""
	}
	return mm[1]
}
