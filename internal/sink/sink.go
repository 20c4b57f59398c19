// Package sink is the network sinkhole. It runs as `mcp-audit sink` inside
// a container that owns the audit's network namespace; the server's
// container joins that namespace with no capabilities. The sink routes
// every IPv4 destination to loopback, redirects TCP, UDP and DNS to its own
// listeners with nftables, answers each DNS name with its own address from
// 198.18.0.0/15, terminates TLS with a per-run CA, records what clients
// send, and answers with harmless canned responses. Nothing leaves the
// namespace in sinkhole mode.
//
// The sink writes events as JSON lines; the host reads them back as
// untrusted input (see Read).
package sink

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Log writes events as JSON lines, bounded in total size.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	written int64
	max     int64
	full    bool
}

// NewLog returns a log writing at most max bytes to w.
func NewLog(w io.Writer, max int64) *Log {
	if max <= 0 {
		max = 64 << 20
	}
	return &Log{w: w, max: max}
}

// Emit writes one event, stamping the time when unset.
func (l *Log) Emit(e sinklog.Event) {
	if e.Time == 0 {
		e.Time = float64(time.Now().UnixNano()) / 1e9
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.full {
		return
	}
	if l.written+int64(len(b))+1 > l.max {
		l.full = true
		b, _ = json.Marshal(sinklog.Event{Time: e.Time, Kind: sinklog.KindError, Error: "log size limit reached; later events dropped"})
	}
	n, _ := l.w.Write(append(b, '\n'))
	l.written += int64(n)
}

// Sink is a running sinkhole.
type Sink struct {
	cfg    sinklog.Config
	log    *Log
	names  *nameTable
	certs  *certMinter
	nextID atomic.Int64
	conns  chan struct{} // bounds concurrent connections
}

// Run sets up the namespace per cfg.Mode, starts the listeners, reports
// ready on stdout and serves until ctx ends.
func Run(ctx context.Context, cfg sinklog.Config, stdout io.Writer) error {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	f, err := os.OpenFile(cfg.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening sink log: %w", err)
	}
	defer f.Close()
	s := &Sink{cfg: cfg, log: NewLog(f, cfg.MaxLogBytes), names: newNameTable(), conns: make(chan struct{}, 256)}
	if s.certs, err = loadMinter(cfg.CACertFile, cfg.CAKeyFile); err != nil {
		return err
	}
	switch cfg.Mode {
	case "sinkhole":
		err = setupSinkhole()
	case "open":
		err = setupOpen()
	default:
		err = fmt.Errorf("unknown sink mode %q", cfg.Mode)
	}
	if err != nil {
		return err
	}
	dnsStop, err := s.serveDNS()
	if err != nil {
		return err
	}
	defer dnsStop()
	if cfg.Mode == "sinkhole" {
		tl, err := net.Listen("tcp4", ":"+strconv.Itoa(sinklog.PortTCP))
		if err != nil {
			return fmt.Errorf("listening for TCP: %w", err)
		}
		defer tl.Close()
		ul, err := net.ListenPacket("udp4", ":"+strconv.Itoa(sinklog.PortUDP))
		if err != nil {
			return fmt.Errorf("listening for UDP: %w", err)
		}
		defer ul.Close()
		go s.acceptTCP(ctx, tl.(*net.TCPListener))
		go s.serveUDP(ul)
	}
	s.log.Emit(sinklog.Event{Kind: sinklog.KindReady})
	fmt.Fprintln(stdout, "ready")
	<-ctx.Done()
	return nil
}

func (s *Sink) acceptTCP(ctx context.Context, l *net.TCPListener) {
	for {
		c, err := l.AcceptTCP()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		select {
		case s.conns <- struct{}{}:
			go func() {
				defer func() { <-s.conns }()
				s.handleTCP(c)
			}()
		default:
			s.log.Emit(sinklog.Event{Kind: sinklog.KindError, Error: "too many concurrent connections; one dropped"})
			c.Close()
		}
	}
}

// prefixConn replays bytes already read from a connection.
type prefixConn struct {
	net.Conn
	r io.Reader
}

func (p *prefixConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func (s *Sink) handleTCP(c *net.TCPConn) {
	defer c.Close()
	id := int(s.nextID.Add(1))
	ev := sinklog.Event{Kind: sinklog.KindTCP, ID: id, Src: c.RemoteAddr().String()}
	if dst, err := originalDst(c); err == nil {
		ev.Dst, ev.DstIP, ev.Port = dst.String(), dst.IP.String(), dst.Port
		ev.Name = s.names.nameOf(dst.IP.String())
	}
	ev.Time = float64(time.Now().UnixNano()) / 1e9
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReaderSize(c, 16<<10)
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	head, err := br.Peek(1)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err != nil || len(head) == 0 {
		ev.Proto = "none"
		s.log.Emit(ev)
		return
	}
	var conn net.Conn = &prefixConn{Conn: c, r: br}
	var reader = br
	if head[0] == 0x16 { // TLS handshake record
		ev.Proto = "tls"
		var hello *tls.ClientHelloInfo
		tc := tls.Server(conn, &tls.Config{
			MinVersion: tls.VersionTLS10,
			NextProtos: []string{"http/1.1"},
			GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
				hello = h
				name := h.ServerName
				if name == "" {
					name = ev.DstIP
				}
				return s.certs.forName(name)
			},
		})
		err := tc.Handshake()
		if hello != nil {
			ev.SNI = textsafe.Valid(hello.ServerName, 253)
			for _, p := range hello.SupportedProtos {
				if len(ev.ALPN) < 8 {
					ev.ALPN = append(ev.ALPN, textsafe.Valid(p, 32))
				}
			}
		}
		if err != nil {
			ev.TLS = "failed: " + textsafe.Valid(err.Error(), 200)
			s.log.Emit(ev)
			return
		}
		ev.TLS = "intercepted"
		conn = tc
		reader = bufio.NewReaderSize(tc, 16<<10)
		tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := reader.Peek(1); err != nil {
			s.log.Emit(ev)
			return
		}
	}
	// Wait briefly for enough bytes to recognize a request line even if
	// the client's first segment was tiny.
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	peek, _ := reader.Peek(8)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if looksHTTP(peek) {
		if ev.Proto == "" {
			ev.Proto = "http"
		}
		s.log.Emit(ev)
		s.serveHTTP(id, ev, conn, reader)
		return
	}
	if ev.Proto == "" {
		ev.Proto = "other"
	}
	// Unknown protocol: record the first bytes the client sends, then
	// the rest of the stream up to MaxStream.
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _ := io.ReadAtLeast(reader, buf, 1)
	ev.First, ev.Length = buf[:n], n
	s.log.Emit(ev)
	if n > 0 {
		s.readRest(id, conn, reader, n)
	}
}

// Bounds on what the sink keeps of a stream it does not understand: the
// bytes per connection (including the first read), how long it waits for
// more, and how it coalesces small writes into one event.
const (
	MaxStream     = 64 << 10
	streamIdle    = 5 * time.Second
	streamChunk   = 8 << 10
	streamCoalesc = 100 * time.Millisecond
)

// readRest records what follows the first read of a connection as data
// events, each as soon as it arrives (coalesced over streamCoalesc), until
// the client closes, idles for streamIdle, or MaxStream bytes are kept.
func (s *Sink) readRest(id int, conn net.Conn, r io.Reader, off int) {
	buf := make([]byte, streamChunk)
	for off < MaxStream {
		conn.SetReadDeadline(time.Now().Add(streamIdle))
		want := min(len(buf), MaxStream-off)
		n, err := r.Read(buf[:want])
		for err == nil && n < want {
			conn.SetReadDeadline(time.Now().Add(streamCoalesc))
			var k int
			k, err = r.Read(buf[n:want])
			n += k
		}
		if n > 0 {
			s.log.Emit(sinklog.Event{Kind: sinklog.KindData, ID: id, Offset: off, Data: bytes.Clone(buf[:n])})
			off += n
		}
		if err != nil && !isTimeout(err) || n == 0 {
			return
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

var httpMethods = []string{"GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD ", "OPTIONS ", "CONNECT ", "TRACE "}

func looksHTTP(b []byte) bool {
	for _, m := range httpMethods {
		if len(b) >= len(m) && string(b[:len(m)]) == m {
			return true
		}
		if len(b) < len(m) && strings.HasPrefix(m, string(b)) && len(b) >= 3 {
			return true
		}
	}
	return false
}

// serveHTTP reads requests on one connection and answers each with the
// canned response for its host.
func (s *Sink) serveHTTP(id int, conn sinklog.Event, c net.Conn, r *bufio.Reader) {
	for i := 0; i < 100; i++ {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		rec := sinklog.HTTPRequest{Method: textsafe.Valid(req.Method, 16), Target: textsafe.Valid(req.RequestURI, 8192),
			Host: textsafe.Valid(req.Host, 253), Proto: textsafe.Valid(req.Proto, 16)}
		keys := make([]string, 0, len(req.Header))
		for k := range req.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range req.Header[k] {
				if len(rec.Headers) < 100 {
					rec.Headers = append(rec.Headers, [2]string{textsafe.Valid(k, 256), textsafe.Valid(v, 4096)})
				}
			}
		}
		body, _ := io.ReadAll(io.LimitReader(req.Body, s.cfg.MaxBody+1))
		rest, _ := io.Copy(io.Discard, io.LimitReader(req.Body, 64<<20))
		rec.BodyLen = int64(len(body)) + rest
		if int64(len(body)) > s.cfg.MaxBody {
			body, rec.Truncated = body[:s.cfg.MaxBody], true
		}
		rec.Body = body
		resp := s.response(req.Host, conn)
		rec.Status = resp.Status
		s.log.Emit(sinklog.Event{Kind: sinklog.KindHTTP, ID: id, Name: conn.Name, DstIP: conn.DstIP, Port: conn.Port, SNI: conn.SNI,
			Requests: []sinklog.HTTPRequest{rec}})
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n%s",
			resp.Status, http.StatusText(resp.Status), resp.ContentType, len(resp.Body), resp.Body)
		if req.Close {
			return
		}
	}
}

func (s *Sink) response(host string, conn sinklog.Event) sinklog.Response {
	h := host
	if i := strings.LastIndex(h, ":"); i > 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	for _, k := range []string{strings.ToLower(h), strings.ToLower(conn.SNI), strings.ToLower(conn.Name), "*"} {
		if r, ok := s.cfg.Responses[k]; ok && k != "" {
			if r.Status == 0 {
				r.Status = 200
			}
			if r.ContentType == "" {
				r.ContentType = "application/json"
			}
			return r
		}
	}
	return sinklog.Response{Status: 200, ContentType: "application/json", Body: "{}"}
}

func (s *Sink) serveUDP(pc net.PacketConn) {
	buf := make([]byte, 65535)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		d := buf[:n]
		if len(d) > 4096 {
			d = d[:4096]
		}
		s.log.Emit(sinklog.Event{Kind: sinklog.KindUDP, Src: addr.String(), Length: n, Data: append([]byte(nil), d...)})
	}
}
