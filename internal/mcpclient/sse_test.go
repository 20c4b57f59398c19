package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseServer is a 2024-11-05 server: GET /sse streams events; messages
// POSTed to the endpoint it names are answered on the stream by handle
// (nil: the stream says endpoint only). endpoint "" names /messages.
type sseServer struct {
	srv      *httptest.Server
	endpoint string
	handle   func(req map[string]any) []string // the events' data to send
	events   chan string
	mu       sync.Mutex
	posts    []string
}

func newSSEServer(t *testing.T, endpoint string, extra string, handle func(req map[string]any) []string) *sseServer {
	s := &sseServer{endpoint: endpoint, handle: handle, events: make(chan string, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			ep := s.endpoint
			if ep == "" {
				ep = "/messages?sessionId=s-1"
			}
			fmt.Fprintf(w, ": hello\n\n%sevent: endpoint\ndata: %s\n\n", extra, ep)
			w.(http.Flusher).Flush()
			for {
				select {
				case ev, ok := <-s.events:
					if !ok {
						return
					}
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == "/messages" && r.URL.Query().Get("sessionId") == "s-1":
			b, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.posts = append(s.posts, string(b))
			s.mu.Unlock()
			var req map[string]any
			_ = json.Unmarshal(b, &req)
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "Accepted")
			if s.handle != nil {
				for _, ev := range s.handle(req) {
					s.events <- ev
				}
			}
		default:
			http.Error(w, "Not found", http.StatusNotFound)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func sseAnswer(req map[string]any, result string) string {
	b, _ := json.Marshal(req["id"])
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"result":` + result + `}`
}

func TestSSESession(t *testing.T) {
	var obs observations
	s := newSSEServer(t, "", "event: banner\ndata: welcome\n\n", func(req map[string]any) []string {
		switch req["method"] {
		case "server/discover":
			b, _ := json.Marshal(req["id"])
			return []string{`{"jsonrpc":"2.0","id":` + string(b) + `,"error":{"code":-32601,"message":"Method not found"}}`}
		case "initialize":
			return []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`, sseAnswer(req, legacyInit)}
		case "tools/list":
			return []string{sseAnswer(req, `{"tools":[{"name":"t"}]}`)}
		}
		return nil
	})
	c, tr := NewSSE(SSEOptions{URL: s.srv.URL + "/sse"}, Options{Observe: obs.add})
	defer func() { c.Close(); tr.Close() }()
	o, err := c.Open(openCtx(t), OpenOptions{})
	if err != nil || o.Era != EraLegacy || o.ServerInfo.Name != "l" || o.Probe.Outcome != ProbeOtherError {
		t.Fatalf("%v %+v", err, o)
	}
	if tools, err := c.List(openCtx(t), "tools/list", "tools"); err != nil || len(tools) != 1 {
		t.Fatalf("%v %s", err, tools)
	}
	if tr.Endpoint() != s.srv.URL+"/messages?sessionId=s-1" {
		t.Errorf("endpoint %q", tr.Endpoint())
	}
	got := obs.of(ChanTransport, SourceSSE)
	if len(got) != 2 || got[0].Method != "banner" || got[1].Method != "endpoint" || len(obs.of(ChanNotification, "")) != 1 {
		t.Errorf("observed %+v", obs.all)
	}
}

// An endpoint on another origin is refused: the client's messages never
// leave for it, and the opening says why, at once.
func TestSSEEndpointOtherOrigin(t *testing.T) {
	s := newSSEServer(t, "http://collect.fixture.example/messages?sessionId=s-1", "", nil)
	c, tr := NewSSE(SSEOptions{URL: s.srv.URL + "/sse"}, Options{})
	defer func() { c.Close(); tr.Close() }()
	start := time.Now()
	_, err := c.Open(openCtx(t), OpenOptions{Protocol: ProtocolLegacy})
	if err == nil || !strings.Contains(err.Error(), "another origin") || time.Since(start) > time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if tr.Endpoint() != "" || len(s.posts) != 0 {
		t.Errorf("posted to %q: %v", tr.Endpoint(), s.posts)
	}
}

// The stream ending is the session ending: a pending call fails at once.
func TestSSEStreamEnds(t *testing.T) {
	s := newSSEServer(t, "", "", func(req map[string]any) []string { return nil })
	c, tr := NewSSE(SSEOptions{URL: s.srv.URL + "/sse"}, Options{})
	defer func() { c.Close(); tr.Close() }()
	go func() { time.Sleep(100 * time.Millisecond); close(s.events) }()
	start := time.Now()
	_, err := c.Call(context.Background(), "initialize", nil)
	if !errors.Is(err, ErrClosed) || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

// Streamable HTTP refused the way an SSE-only server refuses it.
func TestShouldTrySSE(t *testing.T) {
	s := newSSEServer(t, "", "", nil)
	c, tr := NewHTTP(HTTPOptions{URL: s.srv.URL + "/sse"}, Options{})
	defer func() { c.Close(); tr.Close() }()
	_, err := c.Open(openCtx(t), OpenOptions{})
	if !ShouldTrySSE(err) {
		t.Fatalf("ShouldTrySSE(%v) = false", err)
	}
	if ShouldTrySSE(&RPCError{Code: CodeTransport, HTTPStatus: 400, Message: "HTTP 400: json-rpc error -32022: x"}) || ShouldTrySSE(context.DeadlineExceeded) {
		t.Error("ShouldTrySSE on a modern error or a timeout")
	}
}
