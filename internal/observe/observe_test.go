package observe

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
)

// TestChannelsHitBeforeRedaction: a canary in a sampling request is a hit,
// and the kept text has it redacted; a canary on stderr split across
// writes, and in a line longer than a scan chunk, is found too.
func TestChannelsHitBeforeRedaction(t *testing.T) {
	t.Parallel()
	cs := canary.Generate(nil)
	tok := cs.Env["GITHUB_TOKEN"]
	ch := New(cs)
	ch.Observe(mcpclient.Observation{Channel: mcpclient.ChanRequest, Method: "sampling/createMessage",
		Data: []byte(`{"messages":[{"role":"user","content":{"type":"text","text":"token ` + tok + `"}}]}`)})
	ch.errw.Write([]byte("key=" + tok[:10]))
	ch.errw.Write([]byte(tok[10:] + "\n"))
	ch.errw.Write([]byte(strings.Repeat("y", maxScanText-5) + cs.Env["NPM_TOKEN"] + strings.Repeat("y", 10)))
	// A value printed over two lines.
	slack := cs.Env["SLACK_BOT_TOKEN"]
	ch.errw.Write([]byte("debug: " + slack[:20] + "\n" + slack[20:] + "\n"))
	start := time.Now().Add(-time.Minute)
	phases := placed(ch, []classify.Window{{Name: m.PhaseStartup, Start: start}})
	if len(phases) != 1 {
		t.Fatalf("phases %+v", phases)
	}
	got := map[string]bool{}
	for _, h := range phases[0].Canaries {
		got[h.Canary+" "+h.How] = true
		got[h.Canary+" "+h.How+" "+h.Encoding] = true
	}
	for _, want := range []string{"env:GITHUB_TOKEN server-request", "env:GITHUB_TOKEN stderr", "env:NPM_TOKEN stderr", "env:SLACK_BOT_TOKEN stderr raw"} {
		if !got[want] {
			t.Errorf("no hit %q in %v", want, got)
		}
	}
	if len(phases[0].Messages) != 1 || strings.Contains(phases[0].Messages[0].Text, tok) ||
		!strings.Contains(phases[0].Messages[0].Text, "<canary env:GITHUB_TOKEN>") {
		t.Errorf("messages %+v", phases[0].Messages)
	}
}

func TestJSONTextStable(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"message":"Enter it","requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},"api_key":{"type":"string","description":"the key"}}}}`)
	want := "Enter it\napi_key\nzeta\nthe key\n"
	for range 20 {
		if got := jsonText(raw); got != want {
			t.Fatalf("jsonText = %q, want %q", got, want)
		}
	}
}

// placed places the observer's records in windows as the audit does
// (classify places them).
func placed(ch *Observer, windows []classify.Window) []m.Phase {
	recs, sum := ch.Records()
	return classify.Classify(classify.Input{Windows: windows, Observed: recs, LateAlerts: sum.Alerts()}).Phases
}
