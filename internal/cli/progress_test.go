package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
)

func fakeProgress(live bool) (*progress, *bytes.Buffer, *time.Time) {
	var buf bytes.Buffer
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&Env{Stderr: &buf, StderrIsTerminal: live, Getenv: func(string) string { return "" }}, false)
	p.start = now
	p.now = func() time.Time { return now }
	return p, &buf, &now
}

func TestProgressPlainLines(t *testing.T) {
	p, buf, now := fakeProgress(false)
	hook := p.hook()
	hook(audit.Step{Target: "npm:a@1.0.0", Phase: audit.StepInstall})
	*now = now.Add(3 * time.Second)
	hook(audit.Step{Target: "npm:a@1.0.0", Phase: audit.StepStartup})
	for i := range 5 {
		*now = now.Add(time.Second)
		hook(audit.Step{Target: "npm:a@1.0.0", Phase: audit.StepCalls, Done: i, Total: 40})
	}
	*now = now.Add(plainEvery)
	hook(audit.Step{Target: "npm:a@1.0.0", Phase: audit.StepCalls, Done: 17, Total: 40})
	hook(audit.Step{Target: "npm:a\x1b[2J@1.0.0", Phase: audit.StepIdle})
	want := "mcp-audit: [0s] npm:a@1.0.0: install\n" +
		"mcp-audit: [3s] npm:a@1.0.0: startup\n" +
		"mcp-audit: [4s] npm:a@1.0.0: calls 0/40\n" + // one line per phase, then one per plainEvery
		"mcp-audit: [18s] npm:a@1.0.0: calls 17/40\n" +
		"mcp-audit: [18s] npm:a\\x1b[2J@1.0.0: idle\n"
	if got := buf.String(); got != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", got, want)
	}
}

func TestProgressLiveLine(t *testing.T) {
	p, buf, now := fakeProgress(true)
	hook := p.hook()
	hook(audit.Step{Target: "npm:a", Phase: audit.StepStartup})
	*now = now.Add(2 * time.Second)
	hook(audit.Step{Target: "npm:b", Phase: audit.StepCalls, Done: 3, Total: 9})
	if !strings.HasSuffix(buf.String(), "\r\x1b[K[2s] npm:a: startup · npm:b: calls 3/9") {
		t.Errorf("live line: %q", buf.String())
	}
	hook(audit.Step{Target: "npm:a", Phase: audit.StepDone})
	p.Write([]byte("[1/2] a done\n"))
	if !strings.HasSuffix(buf.String(), "\r\x1b[K[1/2] a done\n\r\x1b[K[2s] npm:b: calls 3/9") {
		t.Errorf("a line printed above the live line, which then shows only b: %q", buf.String())
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("done leaves the live line: %q", buf.String())
	}
}

func TestProgressQuiet(t *testing.T) {
	p := newProgress(&Env{}, true)
	if p.hook() != nil {
		t.Error("-q: a progress hook")
	}
	p.done() // a nil progress is safe to finish
}
