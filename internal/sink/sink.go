// Package sink is the network sinkhole. It runs as `mcp-audit sink` inside
// a container that owns the audit's network namespace; the server's
// container joins that namespace with no capabilities. The sink routes
// every IPv4 destination to loopback, redirects TCP, UDP and DNS to its own
// listeners with nftables, answers each DNS name with its own address from
// 198.18.0.0/15, terminates TLS with a per-run CA, records what clients
// send, and answers like the services they expect: HTTP with canned or
// request-shaped JSON, PostgreSQL, MySQL, Redis and SMTP with
// protocol-level fakes over a small seeded schema. Nothing leaves the
// namespace in sinkhole mode.
//
// The sink writes events as JSON lines; the host reads them back as
// untrusted input (see Read).
package sink

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
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

	rsaOnce sync.Once // the MySQL fake's key, made on first use
	rsa     *rsa.PrivateKey
	store   redisStore // the Redis fake's keys
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
	s := &Sink{cfg: cfg, log: NewLog(f, cfg.MaxLogBytes), names: newNameTableIn(cfg.AnswerNet), conns: make(chan struct{}, 256)}
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
