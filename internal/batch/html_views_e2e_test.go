package batch

import (
	"path/filepath"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// viewsFixture publishes three servers: a thief (a canary sent during a
// call, a persistence write), a chatty one (telemetry at startup, hosts
// supplied by a call and a third party's during calls, one call failing)
// and a clean one.
func viewsFixture(t *testing.T) string {
	out := t.TempDir()
	pol := policy.Policy{FailOn: policy.DefaultFailOn}

	thief := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "thief", Version: "1.0.0"},
		Outcome: m.Outcome{Status: m.StatusOK},
		Calls:   []m.Call{{Phase: "call:sync", Kind: "tool", Name: "sync", Outcome: "ok"}},
		Phases: []m.Phase{{Name: m.PhaseStartup, Files: []m.FileAccess{{Path: "~/.bashrc", Access: "write", Category: m.CatShellRC, Result: "ok"}}},
			{Name: "call:sync", Canaries: []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowSent, Evidence: "https POST drop.evil.example/x"}},
				Network: []m.Connection{{Proto: "tcp", Op: "connect", Name: "drop.evil.example", Port: 443, Category: m.ConnEgress}}},
			{Name: m.PhaseIdle}}}
	writeDone(t, out, "thief", thief, policy.Evaluate(thief, pol))

	chatty := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "chatty", Version: "2.0.0"},
		Outcome: m.Outcome{Status: m.StatusOK},
		Calls: []m.Call{{Phase: "call:fetch", Kind: "tool", Name: "fetch", Args: []byte(`{"url":"https://docs.example/a"}`), Outcome: "ok"},
			{Phase: "call:fetch#2", Kind: "tool", Name: "fetch", Args: []byte(`{"url":"https://docs.example/b"}`), Outcome: "error"}},
		Phases: []m.Phase{{Name: m.PhaseStartup, DNS: []m.DNSQuery{{Name: "stats.tracker.example", Type: "A"}}},
			{Name: "call:fetch", DNS: []m.DNSQuery{{Name: "docs.example", Type: "A"}, {Name: "cdn.thirdparty.example", Type: "A"}}},
			{Name: "call:fetch#2", DNS: []m.DNSQuery{{Name: "docs.example", Type: "A"}}},
			{Name: m.PhaseIdle}}}
	writeDone(t, out, "chatty", chatty, policy.Evaluate(chatty, pol))

	clean := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "aaa-clean", Version: "1.0.0"},
		Outcome: m.Outcome{Status: m.StatusOK}, Phases: []m.Phase{{Name: m.PhaseStartup}, {Name: m.PhaseIdle}}}
	writeDone(t, out, "aaa-clean", clean, policy.Evaluate(clean, pol))
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, "report.html")
}

// TestReportViewsInChromium drives the batch report in headless Chromium:
// the matrix (harm order, worst severity and count per cell), each
// server's phase lane and host panel, kind filters that narrow the server
// list on their own, and links into the results directory.
func TestReportViewsInChromium(t *testing.T) {
	b := testenv.Browse(t, viewsFixture(t), `body[data-ready="1"]`)
	b.Screenshot("batch-report.png")

	var order []string
	b.Eval(`[...document.querySelectorAll("#matrix tbody tr button")].map(e => e.textContent)`, &order)
	if strings.Join(order, ",") != "thief,chatty,aaa-clean" {
		t.Errorf("matrix rows %v, want harm order thief (canary), chatty, aaa-clean", order)
	}
	cellOf := func(server, col string) string {
		var s string
		b.Eval(`(() => { const cols = [...document.querySelectorAll("#matrix thead th")].map(e => e.textContent);
			const row = [...document.querySelectorAll("#matrix tbody tr")].find(r => r.querySelector("button").textContent === `+jsQ(server)+`);
			const td = row.children[cols.indexOf(`+jsQ(col)+`)]; return td.className + "|" + td.textContent; })()`, &s)
		return s
	}
	for _, c := range []struct{ server, col, want string }{
		{"thief", "canary", "c sev-critical|1"},
		{"thief", "sensitive file", "c sev-critical|1"},
		{"chatty", "unprompted egress", "c sev-medium|1"},
		{"chatty", "hosts during calls", "c sev-low|1"},
		{"chatty", "canary", "c none|·"},
		{"aaa-clean", "unprompted egress", "c none|·"},
	} {
		if got := cellOf(c.server, c.col); got != c.want {
			t.Errorf("matrix %s × %s = %q, want %q", c.server, c.col, got, c.want)
		}
	}

	var lane []string
	b.Eval(`[...document.querySelectorAll('article[data-server="chatty"] .lane .seg')].map(e => e.className)`, &lane)
	if strings.Join(lane, ",") != "seg g-startup,seg g-call o-ok,seg g-call o-error,seg g-idle" {
		t.Errorf("chatty's lane %q", lane)
	}
	if n := b.Count(`article[data-server="thief"] .lane .mk.canary`); n != 1 {
		t.Errorf("thief's lane has %d canary marks, want 1", n)
	}

	var panel string
	b.Eval(`document.querySelector('article[data-server="chatty"] .panel').innerText`, &panel)
	for _, want := range []string{"unexpected\nstats.tracker.example", "third party (during calls)\ncdn.thirdparty.example (1 call)",
		"supplied by the caller or config\ndocs.example (2 calls)"} {
		if !strings.Contains(panel, want) {
			t.Errorf("chatty's host panel lacks %q:\n%s", want, panel)
		}
	}
	var links []string
	b.Eval(`[...document.querySelectorAll('article[data-server="aaa-clean"] .links a')].map(a => a.getAttribute("href"))`, &links)
	if len(links) != 4 || !strings.HasPrefix(links[0], "manifests/") || !strings.HasPrefix(links[1], "records/") || !strings.HasPrefix(links[2], "profiles/") {
		t.Errorf("clean server's links %q: want manifest, record and two allow-list profiles, relative", links)
	}

	// Kind filters alone narrow the list: keep only telemetry.
	var kinds []string
	b.Eval(`[...document.querySelectorAll("#kinds input")].map(e => e.dataset.kind)`, &kinds)
	for _, k := range kinds {
		if k != policy.KindTelemetry {
			b.Click(`#kinds input[data-kind="` + k + `"]`)
		}
	}
	if n := b.Count("article.card"); n != 1 {
		t.Errorf("%d cards shown with only telemetry checked, want 1 (chatty)", n)
	}
	if n := b.Count("#matrix tbody tr"); n != 1 {
		t.Errorf("%d matrix rows shown with only telemetry checked, want 1", n)
	}
	b.Screenshot("batch-report-telemetry.png")
	if c := b.Console(); len(c) != 0 {
		t.Errorf("console errors: %q", c)
	}
}

func jsQ(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestMatrixHarmFirstInChromium: in the page, the server failing with
// five high findings is the matrix's first row above six passing ones
// whose only "canary" is the dotenv read, the canary tile counts none,
// and a finding's summary and evidence do not run together.
func TestMatrixHarmFirstInChromium(t *testing.T) {
	out := t.TempDir()
	for _, e := range harmFixture() {
		writeDone(t, out, e.Server, sample(e.Server, "1.0.0"), e.Findings)
	}
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	b := testenv.Browse(t, filepath.Join(out, "report.html"), `body[data-ready="1"]`)
	var order []string
	b.Eval(`[...document.querySelectorAll("#matrix tbody tr button")].map(e => e.textContent)`, &order)
	if len(order) != 7 || order[0] != "z-five-high" {
		t.Errorf("matrix rows %v, want z-five-high first", order)
	}
	var tile string
	b.Eval(`[...document.querySelectorAll("#tiles .tile")].map(e => e.innerText.replace(/\s+/g, " ")).find(s => s.includes("canary"))`, &tile)
	if tile != "0 touch a planted canary" {
		t.Errorf("canary tile %q, want 0", tile)
	}
	var text string
	b.Eval(`document.querySelector('article[data-server="z-five-high"] .findings li').textContent`, &text)
	if !strings.Contains(text, "during a call [startup] resolved through") {
		t.Errorf("finding text %q runs together", text)
	}
}
