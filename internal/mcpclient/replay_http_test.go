package mcpclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// replayHTTP serves a transcript's HTTP exchanges: each live POST gets
// the recorded status, content type and body of its match (ids
// rewritten); the MCP headers the live client sent are compared with the
// recorded ones, which the real server accepted.
func replayHTTP(t *testing.T, name string, co Options) (*Client, *replay, *headerCheck) {
	t.Helper()
	r := newReplay(readTranscript(t, name))
	hc := &headerCheck{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 8<<20))
		g := r.match(body)
		if g == nil || g.h == nil {
			k, _ := msgKey(body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(notInTranscript(body, k))
			return
		}
		hc.compare(g.key, g.h.Headers, mcpHeaders(req.Header))
		if g.h.Type != "" {
			w.Header().Set("Content-Type", g.h.Type)
		}
		w.WriteHeader(g.h.Status)
		_, _ = io.WriteString(w, r.rewriteBody(g.h.Answer, g.h.Type))
	}))
	co.MaxLine = max(co.MaxLine, 1<<20)
	c, tr := NewHTTP(HTTPOptions{URL: srv.URL + "/mcp"}, co)
	t.Cleanup(func() { c.Close(); tr.Close(); srv.Close() })
	return c, r, hc
}

// rewriteBody rewrites the ids of a JSON body or of each event's data.
func (r *replay) rewriteBody(body, contentType string) string {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		if json.Valid([]byte(body)) {
			return string(r.rewrite(json.RawMessage(body)))
		}
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if data, ok := strings.CutPrefix(l, "data: "); ok && json.Valid([]byte(data)) {
			lines[i] = "data: " + string(r.rewrite(json.RawMessage(data)))
		}
	}
	return strings.Join(lines, "\n")
}

// headerCheck collects differences between recorded and live headers.
type headerCheck struct {
	mu    sync.Mutex
	diffs []string
}

func (h *headerCheck) compare(key string, want, got map[string]string) {
	if d := cmp.Diff(want, got); d != "" {
		h.mu.Lock()
		h.diffs = append(h.diffs, fmt.Sprintf("%s: headers (-recorded +live):\n%s", key, d))
		h.mu.Unlock()
	}
}

func (h *headerCheck) check(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range h.diffs {
		t.Error(d)
	}
}

// replaySSE serves a 2024-11-05 transcript: the stream names an endpoint,
// and each live POST's recorded answers are sent on the stream.
func replaySSE(t *testing.T, name string, co Options) (*Client, *replay) {
	t.Helper()
	var msgs []record
	for _, rec := range readTranscript(t, name) {
		if rec.H == nil {
			msgs = append(msgs, rec)
		}
	}
	r := newReplay(msgs)
	events := make(chan []byte, 256)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /messages?sessionId=replay\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-events:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
					w.(http.Flusher).Flush()
				case <-req.Context().Done():
					return
				}
			}
		}
		body, _ := io.ReadAll(io.LimitReader(req.Body, 8<<20))
		w.WriteHeader(http.StatusAccepted)
		k, id := msgKey(body)
		if g := r.match(body); g != nil {
			for _, out := range g.out {
				events <- r.rewrite(out)
			}
		} else if id != "" {
			events <- notInTranscript(body, k)
		}
	}))
	c, tr := NewSSE(SSEOptions{URL: srv.URL + "/sse"}, co)
	t.Cleanup(func() { c.Close(); tr.Close(); srv.Close() })
	return c, r
}
