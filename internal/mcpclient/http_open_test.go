package mcpclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Openings over Streamable HTTP: an HTTP status is an answer, with its
// reason, never "not answered in time".
func TestHTTPOpen(t *testing.T) {
	cases := []struct {
		name    string
		proto   string
		probe   func(w http.ResponseWriter) // the answer to server/discover
		era     Era
		outcome string
		wantErr string
	}{
		{"2025 endpoint 404s the probe", ProtocolAuto, func(w http.ResponseWriter) { http.Error(w, "not found", http.StatusNotFound) }, EraLegacy, ProbeHTTPStatus, ""},
		{"2025 endpoint 400s the probe with its own error", ProtocolAuto, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`))
		}, EraLegacy, ProbeHTTPStatus, ""},
		{"forced modern against a 405", ProtocolModern, func(w http.ResponseWriter) { http.Error(w, "no", http.StatusMethodNotAllowed) }, "", "",
			"server/discover failed: HTTP 405 without an answer"},
		{"forced modern against a 400 with a body error", ProtocolModern, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`))
		}, "", "", "server/discover failed: HTTP 400: json-rpc error -32000: Bad Request: Server not initialized"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var probeHeaders http.Header
			c, _ := httpServer(t, HTTPOptions{}, func(w http.ResponseWriter, req map[string]any, r *http.Request) {
				switch req["method"] {
				case "server/discover":
					mu.Lock()
					probeHeaders = r.Header.Clone()
					mu.Unlock()
					tc.probe(w)
				case "initialize":
					jsonReply(w, req["id"], initResult)
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			})
			start := time.Now()
			o, err := c.Open(openCtx(t), OpenOptions{Protocol: tc.proto})
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil || o.Era != tc.era || o.Probe.Outcome != tc.outcome {
				t.Fatalf("%v %+v", err, o)
			}
			mu.Lock()
			defer mu.Unlock()
			if probeHeaders.Get("MCP-Protocol-Version") != ProtocolModern || probeHeaders.Get("Mcp-Method") != "server/discover" || probeHeaders.Get("Mcp-Session-Id") != "" {
				t.Errorf("probe headers %v", probeHeaders)
			}
		})
	}
}

// A server that never listens ends the opening at its deadline, saying
// why: the connection was refused.
func TestHTTPOpenUnreachableSaysWhy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, tr := NewHTTP(HTTPOptions{URL: "http://" + addr + "/mcp", RetryInitialize: true}, Options{})
	defer func() { c.Close(); tr.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, err = c.Open(ctx, OpenOptions{Protocol: ProtocolModern})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "could not be reached") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v", err)
	}
}

// In the modern era a call that runs out of time closes its stream (the
// revision's cancellation on HTTP) and posts no notification.
func TestHTTPModernCancelClosesTheStream(t *testing.T) {
	aborted := make(chan bool, 1)
	var mu sync.Mutex
	var methods []string
	c, _ := httpServer(t, HTTPOptions{}, func(w http.ResponseWriter, req map[string]any, r *http.Request) {
		mu.Lock()
		methods = append(methods, req["method"].(string))
		mu.Unlock()
		switch req["method"] {
		case "server/discover":
			jsonReply(w, req["id"], discoverResult)
		case "tools/call":
			select {
			case <-r.Context().Done():
				aborted <- true
			case <-time.After(5 * time.Second):
				aborted <- false
			}
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	if _, err := c.Open(openCtx(t), OpenOptions{Protocol: ProtocolModern}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "hang"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if !<-aborted {
		t.Fatal("the stream stayed open")
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(methods, ","), "notifications/cancelled") {
		t.Errorf("a cancellation was posted: %v", methods)
	}
}
