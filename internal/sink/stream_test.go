package sink

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// TestReadRestKeepsTheStream: what a client sends after its first read is
// recorded as data events in order, pieces that arrive together coalesced,
// up to MaxStream bytes.
func TestReadRestKeepsTheStream(t *testing.T) {
	var log bytes.Buffer
	s := &Sink{log: NewLog(&log, 0)}
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close()
		s.readRest(3, server, server, 6)
	}()
	client.Write([]byte("part-1 "))
	client.Write([]byte("part-2"))
	time.Sleep(300 * time.Millisecond)
	client.Write([]byte(" after a pause"))
	time.Sleep(300 * time.Millisecond)
	big := strings.Repeat("x", MaxStream)
	tail := "past the bound: the value"
	go func() { client.Write([]byte(big + tail)); client.Close() }()
	<-done
	evs, _ := sinklog.Read(log.Bytes(), 0)
	// What came past MaxStream is one digest event at its end.
	last := evs[len(evs)-1]
	sent := big + tail
	past := 6 + len("part-1 part-2 after a pause") + len(sent) - MaxStream
	if want := fmt.Sprintf("%x", sha256.Sum256([]byte(sent[len(sent)-past:]))); last.Digest != want || last.Length != past || last.Offset != MaxStream {
		t.Errorf("the rest: %+v, want digest %s of %d bytes", last, want, past)
	}
	evs = evs[:len(evs)-1]
	var got []string
	total := 6
	for _, e := range evs {
		if e.Kind != sinklog.KindData || e.ID != 3 || e.Offset != total {
			t.Fatalf("event %+v at %d", e, total)
		}
		total += len(e.Data)
		if len(got) < 2 {
			got = append(got, string(e.Data))
		}
	}
	if diff := cmp.Diff([]string{"part-1 part-2", " after a pause"}, got); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if total != MaxStream {
		t.Errorf("kept %d bytes, bound %d", total, MaxStream)
	}
}
