package sink

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// TestParseListeners: listening sockets of the server's user are listed
// with their address decoded; the sink's own (root's), connected sockets
// and garbage are not.
func TestParseListeners(t *testing.T) {
	v4 := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0
   1: 00000000:0035 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0 100 0 0 10 0
   2: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0 100 0 0 10 0
   3: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4 1 0 100 0 0 10 0
   4: zz:zz
`
	v6 := `   0: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 5
`
	got := append(ParseListeners([]byte(v4), false), ParseListeners([]byte(v6), true)...)
	want := []Listener{{"0.0.0.0", 3000, false}, {"127.0.0.1", 8080, false}, {"::1", 8081, true}}
	if !slices.Equal(got, want) {
		t.Errorf("listeners %v, want %v", got, want)
	}
}

// serve answers on a loopback port with handler; it returns the port.
func serve(t *testing.T, handler func(net.Conn)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handler(c) }()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func probeAll(t *testing.T, port int) map[string]sinklog.Probe {
	lim := ProbeLimits{Banner: 200 * time.Millisecond, Request: time.Second, Body: 1024}
	out := map[string]sinklog.Probe{}
	for _, p := range ProbeOne(context.Background(), Listener{Address: "0.0.0.0", Port: port}, lim, dialLoopback) {
		out[p.Request] = p
	}
	return out
}

// TestProbeHTTP: an HTTP listener is asked every path with the hostile
// Origin; status, headers and a bounded body come back.
func TestProbeHTTP(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		if r.URL.Path == "/.env" {
			fmt.Fprint(w, "TOKEN=secret\n"+strings.Repeat("x", 5000))
			return
		}
		http.NotFound(w, r)
	})}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	got := probeAll(t, l.Addr().(*net.TCPAddr).Port)
	if len(got) != 1+len(ProbePaths) {
		t.Fatalf("requests %v", got)
	}
	env := got["GET /.env"]
	if env.Status != 200 || !slices.Contains(env.Headers, "Access-Control-Allow-Origin: "+ProbeOrigin) ||
		!strings.HasPrefix(string(env.Body), "TOKEN=secret") || len(env.Body) != 1024 || env.Error != "truncated" {
		t.Errorf("GET /.env: %+v", env)
	}
	if got["GET /"].Status != 404 || got["banner"].Error != "timeout" {
		t.Errorf("GET /: %+v; banner %+v", got["GET /"], got["banner"])
	}
}

// TestProbeRaw: a listener that speaks first, or answers anything with
// raw bytes, is recorded as it spoke; a closed port is asked once.
func TestProbeRaw(t *testing.T) {
	port := serve(t, func(c net.Conn) { fmt.Fprint(c, "SSH-2.0-backdoor key=abc\r\n") })
	got := probeAll(t, port)
	if b := got["banner"]; !strings.HasPrefix(string(b.Body), "SSH-2.0-backdoor") {
		t.Errorf("banner %+v", b)
	}
	if g := got["GET /"]; g.Error != "not-http" || !strings.Contains(string(g.Body), "key=abc") {
		t.Errorf("GET / %+v", g)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if got := probeAll(t, closed); len(got) != 1 || got["banner"].Error != "refused" {
		t.Errorf("closed port: %v", got)
	}
}

// FuzzParseListeners: any text parses without a panic into listeners
// with a port.
func FuzzParseListeners(f *testing.F) {
	f.Add([]byte("   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range ParseListeners(data, len(data)%2 == 0) {
			if l.Port <= 0 || l.Port > 65535 {
				t.Fatalf("%+v", l)
			}
		}
	})
}
