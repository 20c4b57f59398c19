package sink

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// The listener probe runs in the sink container, which owns the run's
// network namespace, after the calls (`mcp-audit sink --probe`): it lists
// the TCP sockets the server listens on (/proc/net/tcp and tcp6 of the
// namespace, sockets of any user but the sink's own, root), connects to
// each on loopback only, never elsewhere (a socket may claim any address
// with IP_FREEBIND; loopback stays inside the namespace), reads what the
// server says first, then asks a few common paths over HTTP with a
// hostile Origin. Every read is bounded in bytes and time.

// ProbePaths are the paths the probe asks for.
var ProbePaths = []string{"/", "/api", "/health", "/.env", "/config"}

// ProbeOrigin is the Origin the probe sends (manifest.ProbeOrigin).
const ProbeOrigin = "https://evil.example"

// ProbeLimits bound the probe; zero fields take the defaults.
type ProbeLimits struct {
	Listeners int           // at most this many sockets (8)
	Body      int           // bytes read of an answer's body or a banner (32 KiB)
	Banner    time.Duration // how long to wait for a banner (800 ms)
	Request   time.Duration // per request (2 s)
	Total     time.Duration // for the whole probe (25 s, within the host's 30 s)
}

func (l ProbeLimits) withDefaults() ProbeLimits {
	l.Listeners = cmpOr(l.Listeners, 8)
	l.Body = min(cmpOr(l.Body, 32<<10), sinklog.MaxProbeBody)
	if l.Banner <= 0 {
		l.Banner = 800 * time.Millisecond
	}
	if l.Request <= 0 {
		l.Request = 2 * time.Second
	}
	if l.Total <= 0 {
		l.Total = 25 * time.Second
	}
	return l
}

func cmpOr(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Listener is a listening TCP socket of the namespace.
type Listener struct {
	Address string
	Port    int
	V6      bool
}

// ProbeListeners probes every listening socket of the server and writes
// what answered to w, one sinklog.Probe a line. ctx bounds it all.
func ProbeListeners(ctx context.Context, w io.Writer, lim ProbeLimits) error {
	v4, err4 := os.ReadFile("/proc/net/tcp")
	v6, _ := os.ReadFile("/proc/net/tcp6") // absent when IPv6 is off
	if err4 != nil {
		return fmt.Errorf("listing listening sockets: %w", err4)
	}
	lim = lim.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, lim.Total)
	defer cancel()
	ls := ParseListeners(v4, false)
	ls = append(ls, ParseListeners(v6, true)...)
	enc := json.NewEncoder(w)
	for i, l := range ls {
		if i == lim.Listeners || ctx.Err() != nil {
			break
		}
		for _, p := range ProbeOne(ctx, l, lim, dialLoopback) {
			if err := enc.Encode(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// dialLoopback connects to the listener's port on loopback: 127.0.0.1
// for an IPv4 socket, ::1 for an IPv6 one, whatever address it claims.
func dialLoopback(ctx context.Context, l Listener) (net.Conn, error) {
	host := "127.0.0.1"
	if l.V6 {
		host = "::1"
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(l.Port)))
}

// ParseListeners reads /proc/net/tcp or tcp6 text: the sockets in state
// LISTEN (0A) owned by any user but root (the sink's own), deduplicated,
// in port order.
func ParseListeners(data []byte, v6 bool) []Listener {
	var out []Listener
	seen := map[Listener]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || f[3] != "0A" || f[7] == "0" {
			continue
		}
		addr, port, ok := strings.Cut(f[1], ":")
		p, err := strconv.ParseUint(port, 16, 16)
		ip := procIP(addr)
		if !ok || err != nil || p == 0 || ip == nil {
			continue
		}
		l := Listener{Address: ip.String(), Port: int(p), V6: v6}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b Listener) int { return a.Port - b.Port })
	return out
}

// procIP decodes an address as /proc/net prints it: the address in
// 32-bit words, each in host (little-endian) byte order.
func procIP(s string) net.IP {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 4 && len(b) != 16 {
		return nil
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b)
}

// dialFunc connects to a listener.
type dialFunc func(ctx context.Context, l Listener) (net.Conn, error)

// ProbeOne probes one listener: its banner, then each of ProbePaths. A
// listener that refuses the first connection is asked nothing more.
func ProbeOne(ctx context.Context, l Listener, lim ProbeLimits, dial dialFunc) []sinklog.Probe {
	lim = lim.withDefaults()
	banner := probeBanner(ctx, l, lim, dial)
	out := []sinklog.Probe{banner}
	if banner.Error == "refused" {
		return out
	}
	for _, path := range ProbePaths {
		if ctx.Err() != nil {
			break
		}
		out = append(out, probeGET(ctx, l, path, lim, dial))
	}
	return out
}

// probeBanner connects, sends nothing and reads what comes within
// lim.Banner.
func probeBanner(ctx context.Context, l Listener, lim ProbeLimits, dial dialFunc) sinklog.Probe {
	p := sinklog.Probe{Address: l.Address, Port: l.Port, Request: "banner"}
	conn, err := dialWithin(ctx, l, lim.Request, dial)
	if err != nil {
		p.Error = "refused"
		return p
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(lim.Banner))
	p.Body, err = io.ReadAll(io.LimitReader(conn, int64(lim.Body)))
	p.Error = readError(err)
	return p
}

func dialWithin(ctx context.Context, l Listener, d time.Duration, dial dialFunc) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return dial(ctx, l)
}

// probeGET asks for path with the hostile Origin and reads the answer:
// status and headers when it is HTTP, the raw bytes read when it is not.
func probeGET(ctx context.Context, l Listener, path string, lim ProbeLimits, dial dialFunc) sinklog.Probe {
	p := sinklog.Probe{Address: l.Address, Port: l.Port, Request: "GET " + path}
	conn, err := dialWithin(ctx, l, lim.Request, dial)
	if err != nil {
		p.Error = "refused"
		return p
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(lim.Request))
	host := "127.0.0.1:" + strconv.Itoa(l.Port)
	if l.V6 {
		host = "[::1]:" + strconv.Itoa(l.Port)
	}
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nUser-Agent: mcp-audit-probe\r\nAccept: */*\r\nConnection: close\r\n\r\n",
		path, host, ProbeOrigin)
	// What the server sends is read once, bounded: headers and body
	// together, kept so an answer that is not HTTP is still recorded.
	raw := &capped{max: lim.Body}
	br := bufio.NewReader(io.TeeReader(io.LimitReader(conn, int64(lim.Body)+(sinklog.MaxProbeHeaders+4)*sinklog.MaxProbeHeader), raw))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		io.Copy(io.Discard, io.LimitReader(br, int64(lim.Body)))
		p.Body, p.Error = raw.buf.Bytes(), "not-http"
		return p
	}
	defer resp.Body.Close()
	p.Status = resp.StatusCode
	for name, vs := range resp.Header {
		for _, v := range vs {
			if len(p.Headers) < sinklog.MaxProbeHeaders {
				p.Headers = append(p.Headers, truncate(name+": "+v, sinklog.MaxProbeHeader))
			}
		}
	}
	slices.Sort(p.Headers)
	p.Body, err = io.ReadAll(io.LimitReader(resp.Body, int64(lim.Body)))
	p.Error = readError(err)
	if err == nil && len(p.Body) == lim.Body {
		p.Error = "truncated"
	}
	return p
}

// readError names why a read ended early: timeout or a closed connection
// are normal ends of a banner; anything else is an error.
func readError(err error) string {
	var ne net.Error
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return ""
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "closed"
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(b []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
