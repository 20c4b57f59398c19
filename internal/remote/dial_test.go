package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/remote/remotefake"
)

func httpServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRefused(t *testing.T) {
	cases := []struct {
		addr     string
		loopback bool
		refused  bool
	}{
		{"127.0.0.1", false, true}, {"127.0.0.1", true, false}, {"::1", false, true}, {"::1", true, false},
		{"10.1.2.3", false, true}, {"172.16.0.9", true, true}, {"192.168.1.1", false, true},
		{"169.254.169.254", true, true}, {"fe80::1", false, true}, {"fd00::1", false, true},
		{"100.64.0.1", false, true}, {"0.0.0.0", false, true}, {"::", false, true},
		{"::ffff:127.0.0.1", false, true}, {"::ffff:10.0.0.1", true, true}, {"64:ff9b::a00:1", false, true},
		{"224.0.0.1", false, true},
		// The controls: public addresses (documentation ranges stand in).
		{"198.51.100.7", false, false}, {"203.0.113.9", false, false}, {"2001:db8::1", false, false},
		{"::ffff:198.51.100.7", false, false},
	}
	for _, c := range cases {
		got := Refused(netip.MustParseAddr(c.addr), c.loopback) != ""
		if got != c.refused {
			t.Errorf("Refused(%s, loopback %v) = %v, want %v", c.addr, c.loopback, got, c.refused)
		}
	}
}

// TestLoopbackRefused: a server on loopback is not contacted unless the
// test-only option allows it, neither by its address in the URL nor by
// the connection the client would make (the guard at connect time, which
// also catches names that resolve to it).
func TestLoopbackRefused(t *testing.T) {
	srv := remotefake.Start(remotefake.Benign)
	defer srv.Close()
	_, err := Audit(context.Background(), Options{URL: srv.HTTPURL()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("err %v, want refused", err)
	}
	g := &guard{}
	b := &budget{}
	b.left.Store(1 << 20)
	_, err = newHTTPClient(g, b).Get(srv.HTTPURL())
	if !errors.Is(err, ErrRefused) || g.why() == "" {
		t.Errorf("the connection was made: %v", err)
	}
	for _, u := range []string{"http://localhost:1/mcp", "http://printer.local/mcp", "http://[::1]:1/mcp", "http://169.254.169.254/latest"} {
		if _, err := Audit(context.Background(), Options{URL: u}); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err %v, want refused", u, err)
		}
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the server got %d requests", len(srv.Requests()))
	}
	// The control: allowed, the same server is audited.
	if man := audit(t, Options{URL: srv.HTTPURL()}); len(man.Tools) != 2 {
		t.Errorf("tools %+v", man.Tools)
	}
}

// TestRedirectElsewhere: a redirect to another origin is not followed.
func TestRedirectElsewhere(t *testing.T) {
	var reached atomic.Bool
	other := httpServer(t, func(w http.ResponseWriter, r *http.Request) { reached.Store(true) })
	first := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+"/mcp", http.StatusTemporaryRedirect)
	})
	man := audit(t, Options{URL: first + "/mcp", Timeout: 10 * time.Second})
	if reached.Load() || man.Outcome.Status != m.StatusNoHandshake {
		t.Errorf("reached %v, outcome %+v", reached.Load(), man.Outcome)
	}
}

// TestBudget: a server answering with page after page of tools is read up
// to the budget, and the audit says where it stopped; a modest server
// (the control) is read whole.
func TestBudget(t *testing.T) {
	var served atomic.Int64
	pad := strings.Repeat("x", 60<<10)
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if err := decode(r, &req); err != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		id := fmt.Sprintf("%q", fmt.Sprint(req.ID))
		if _, ok := req.ID.(float64); ok {
			id = fmt.Sprint(req.ID)
		}
		w.Header().Set("Content-Type", "application/json")
		var body string
		switch req.Method {
		case "initialize":
			body = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`
		case "tools/list":
			body = fmt.Sprintf(`{"tools":[{"name":"t","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":"c%d"}`, pad, served.Load())
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no"}}`))
			return
		}
		n, _ := w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + body + `}`))
		served.Add(int64(n))
	})
	man := audit(t, Options{URL: srv + "/mcp", MaxBytes: 1 << 20})
	if served.Load() > 2<<20 || !strings.Contains(strings.Join(man.Run.Notes, "\n"), "more than the 1 MiB") {
		t.Errorf("served %d bytes; notes %v", served.Load(), man.Run.Notes)
	}
	if man := audit(t, Options{URL: srv + "/mcp", MaxBytes: 64 << 20}); strings.Contains(strings.Join(man.Run.Notes, "\n"), "more than") {
		t.Errorf("the control was cut: %v", man.Run.Notes)
	}
}

func decode(r *http.Request, v any) error { return json.NewDecoder(r.Body).Decode(v) }
