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

// httpServer serves handle at /mcp and returns a client for it.
func httpServer(t *testing.T, ho HTTPOptions, handle func(w http.ResponseWriter, req map[string]any, r *http.Request)) (*Client, *HTTPTransport) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		var req map[string]any
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		handle(w, req, r)
	}))
	ho.URL = srv.URL + "/mcp"
	c, tr := NewHTTP(ho, Options{MaxLine: 4096, Roots: []string{"file:///home/dev/workspace"}})
	t.Cleanup(func() { c.Close(); tr.Close(); srv.Close() })
	return c, tr
}

func jsonReply(w http.ResponseWriter, id any, result string) {
	b, _ := json.Marshal(id)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{\"jsonrpc\":\"2.0\",\n \"id\":"+string(b)+",\"result\":"+result+"}")
}

const initResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}`

func TestHTTPSessionJSONAndEvents(t *testing.T) {
	var mu sync.Mutex
	var headers []string
	rootsAnswered := make(chan string, 1)
	c, tr := httpServer(t, HTTPOptions{}, func(w http.ResponseWriter, req map[string]any, r *http.Request) {
		mu.Lock()
		headers = append(headers, fmt.Sprintf("%v sid=%q proto=%q", req["method"], r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version")))
		mu.Unlock()
		switch req["method"] {
		case "initialize":
			if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
				http.Error(w, "accept", http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Mcp-Session-Id", "sess-1")
			jsonReply(w, req["id"], initResult)
		case "tools/list":
			// An event stream: a server request, a notification, noise, then
			// the answer split over two data lines.
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, ": comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}\n\n")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"hi\"}}\n\n")
			io.WriteString(w, "data: not json\n\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
			b, _ := json.Marshal(req["id"])
			io.WriteString(w, string(b)+",\r\ndata: \"result\":{\"tools\":[{\"name\":\"t\"}]}}\r\n\r\n")
		case nil: // the client's answer to roots/list
			b, _ := json.Marshal(req["result"])
			rootsAnswered <- string(b)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := c.Initialize(ctx)
	if err != nil || res.ServerInfo.Name != "h" {
		t.Fatalf("initialize: %v %+v", err, res)
	}
	tools, err := c.List(ctx, "tools/list", "tools")
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools/list: %v %s", err, tools)
	}
	select {
	case got := <-rootsAnswered:
		if !strings.Contains(got, "file:///home/dev/workspace") {
			t.Errorf("roots answer = %s", got)
		}
	case <-ctx.Done():
		t.Fatal("roots/list was not answered")
	}
	if c.Noise() != 1 {
		t.Errorf("noise = %d, want 1 (the data that is not JSON)", c.Noise())
	}
	if tr.SessionID() != "sess-1" {
		t.Errorf("session = %q", tr.SessionID())
	}
	// The notification is posted without waiting for its answer, so it
	// may still be in flight: wait for it, up to the test's deadline.
	want := []string{`initialize sid="" proto=""`, `notifications/initialized sid="sess-1" proto="2025-06-18"`}
	for _, w := range want {
		for {
			mu.Lock()
			ok := containsStr(headers, w)
			mu.Unlock()
			if ok || ctx.Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		if !containsStr(headers, w) {
			t.Errorf("no request %q in %q", w, headers)
		}
		mu.Unlock()
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Hostile answers: each must fail its call quickly, with bounded memory,
// and leave the session usable.
func TestHTTPHostileResponses(t *testing.T) {
	cases := []struct {
		name   string
		handle func(w http.ResponseWriter, id any)
		code   int
	}{
		{"huge json", func(w http.ResponseWriter, id any) {
			w.Header().Set("Content-Type", "application/json")
			b, _ := json.Marshal(id)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(b)+`,"result":{"x":"`)
			chunk := strings.Repeat("A", 64<<10)
			for range 256 { // 16 MiB offered; the client reads MaxBody
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}, CodeTooLarge},
		{"huge event line", func(w http.ResponseWriter, id any) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
			chunk := strings.Repeat("B", 64<<10)
			for range 256 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}, CodeTransport},
		{"slow", func(w http.ResponseWriter, id any) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			for range 100 {
				if _, err := io.WriteString(w, ": still here\n"); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		}, CodeTransport},
		{"malformed events", func(w http.ResponseWriter, id any) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "garbage without a colon\n\x00\x1b[31m\ndatabase: x\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\n\ndata: [1,2]\n\n")
		}, CodeTransport},
		{"error status", func(w http.ResponseWriter, id any) {
			http.Error(w, "<html>boom</html>", http.StatusInternalServerError)
		}, CodeTransport},
		{"bad session id", func(w http.ResponseWriter, id any) {
			w.Header().Set("Mcp-Session-Id", "a b\x7f"+strings.Repeat("x", 300))
			w.WriteHeader(http.StatusAccepted) // no answer at all
		}, CodeTransport},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, tr := httpServer(t, HTTPOptions{MaxBody: 64 << 10, RequestTimeout: 700 * time.Millisecond},
				func(w http.ResponseWriter, req map[string]any, r *http.Request) {
					if req["method"] == "ping" {
						jsonReply(w, req["id"], `{}`)
						return
					}
					tc.handle(w, req["id"])
				})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			t0 := time.Now()
			_, err := c.Call(ctx, "tools/call", map[string]any{"name": "x"})
			var rpc *RPCError
			if !errors.As(err, &rpc) || rpc.Code != tc.code {
				t.Fatalf("err = %v, want code %d", err, tc.code)
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if _, err := c.Call(ctx, "ping", nil); err != nil {
				t.Errorf("session unusable after %s: %v", tc.name, err)
			}
			if sid := tr.SessionID(); sid != "" {
				t.Errorf("session id %q accepted", sid)
			}
		})
	}
}

func TestHTTPUnreachable(t *testing.T) {
	c, tr := NewHTTP(HTTPOptions{URL: "http://127.0.0.1:1/mcp"}, Options{})
	defer tr.Close()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Call(ctx, "initialize", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeTransport {
		t.Fatalf("err = %v", err)
	}
}
