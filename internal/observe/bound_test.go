package observe

import (
	"bytes"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
)

// TestChannelsBoundBytes: what the server prints outside its answers is
// searched up to maxSearched per segment; past that it is counted and the
// segment gets a trace_incomplete alert (high), instead of queueing
// without bound on the host.
func TestChannelsBoundBytes(t *testing.T) {
	defer func(v int64) { maxSearched = v }(maxSearched)
	maxSearched = 16 << 20
	ch := New(canary.Generate(nil))
	line := bytes.Repeat([]byte("x"), 4<<20)
	for range int(maxSearched)/len(line) + 4 {
		ch.Observe(mcpclient.Observation{Channel: mcpclient.ChanStdout, Data: line})
	}
	phases := placed(ch, nil)
	if len(phases[0].Alerts) != 1 || phases[0].Alerts[0].Kind != m.AlertTraceIncomplete {
		t.Fatalf("alerts %+v", phases[0].Alerts)
	}
	if ch.queued != 0 || ch.unsearched != 4*int64(len(line)) {
		t.Errorf("queued %d unsearched %d", ch.queued, ch.unsearched)
	}
}
