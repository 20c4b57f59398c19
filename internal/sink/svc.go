package sink

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds on one connection to a service fake. A database client keeps
// its connection for the whole audit (connected at startup, queried on
// every tool call), so the idle and total times are long; bytes and
// messages are bounded so that a hostile client costs the sink little.
const (
	svcIdle     = 5 * time.Minute  // between two messages
	svcLifetime = 30 * time.Minute // of one connection
	svcMaxRead  = 64 << 20         // bytes read from the client
	svcMaxMsgs  = 20_000           // messages answered
	svcMaxKept  = 8 << 20          // payload bytes recorded
	svcMaxMsg   = 1 << 20          // one protocol message (256 connections of it fit the sink's 512 MiB)
	svcWrite    = 30 * time.Second // to write one answer
)

// errSvcBound ends a connection that reached one of its bounds.
var errSvcBound = errors.New("service connection bound reached")

// countedConn fails reads once a connection has delivered its bound.
type countedConn struct {
	net.Conn
	left int64
}

func (c *countedConn) Read(b []byte) (int, error) {
	if c.left <= 0 {
		return 0, errSvcBound
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.Conn.Read(b)
	c.left -= int64(n)
	return n, err
}

// svcConn is one client connection to a service fake: what it reads and
// writes (TLS once upgraded), its bounds, and where its payloads go.
type svcConn struct {
	s       *Sink
	ev      sinklog.Event // the connection's tcp event
	conn    net.Conn
	r       *bufio.Reader
	start   time.Time
	msgs    int
	kept    int64
	capped  bool
	tlsDone bool
}

func (s *Sink) newSvcConn(ev sinklog.Event, c net.Conn, r *bufio.Reader) *svcConn {
	return &svcConn{s: s, ev: ev, conn: c, r: r, start: time.Now(), tlsDone: ev.TLS == "intercepted"}
}

// next starts reading one more message: it counts it and sets the read
// deadline, or reports that the connection is spent.
func (sc *svcConn) next() error {
	sc.msgs++
	if sc.msgs > svcMaxMsgs {
		sc.s.log.Emit(sinklog.Event{Kind: sinklog.KindError, ID: sc.ev.ID,
			Error: fmt.Sprintf("%s fake: message limit of one connection reached; closed", sc.ev.Service)})
		return errSvcBound
	}
	d := time.Now().Add(svcIdle)
	if end := sc.start.Add(svcLifetime); end.Before(d) {
		d = end
	}
	sc.conn.SetReadDeadline(d)
	return nil
}

// write sends one answer.
func (sc *svcConn) write(b []byte) error {
	sc.conn.SetWriteDeadline(time.Now().Add(svcWrite))
	_, err := sc.conn.Write(b)
	return err
}

// readFull reads n bytes of one message (n already checked against
// svcMaxMsg by the caller).
func (sc *svcConn) readFull(n int) ([]byte, error) {
	if n < 0 || n > svcMaxMsg {
		return nil, errSvcBound
	}
	b := make([]byte, n)
	_, err := io.ReadFull(sc.r, b)
	return b, err
}

// startTLS upgrades the connection in place (PostgreSQL's SSLRequest,
// MySQL's SSL request, SMTP's STARTTLS) with the run's CA; bytes the
// client sent ahead are part of the handshake.
func (sc *svcConn) startTLS() error {
	tc, err := sc.s.terminateTLS(&prefixConn{Conn: sc.conn, r: sc.r}, &sc.ev)
	if err != nil {
		sc.record(sinklog.OpRaw, []byte("TLS upgrade "+sc.ev.TLS), "", nil)
		return err
	}
	sc.conn, sc.r, sc.tlsDone = tc, bufio.NewReaderSize(tc, 16<<10), true
	return nil
}

// record emits one payload event: data cut to the sink's body bound,
// the user as text, the secret as sent (the host masks it). Past
// svcMaxKept bytes of one connection, one error event says recording
// stopped while the fake goes on answering.
func (sc *svcConn) record(op string, data []byte, user string, secret []byte) {
	if sc.capped {
		return
	}
	n := int64(len(data) + len(user) + len(secret))
	if sc.kept+n > svcMaxKept {
		sc.capped = true
		sc.s.log.Emit(sinklog.Event{Kind: sinklog.KindError, ID: sc.ev.ID,
			Error: fmt.Sprintf("%s fake: recording limit of one connection reached; later payloads not kept", sc.ev.Service)})
		return
	}
	sc.kept += n
	max := sc.s.maxBody()
	e := sinklog.Event{Kind: sinklog.KindPayload, ID: sc.ev.ID, Name: sc.ev.Name, DstIP: sc.ev.DstIP, Port: sc.ev.Port,
		Service: sc.ev.Service, Op: op, User: textsafe.Valid(user, 1024), Length: len(data)}
	if len(data) > 0 {
		e.Data = bytes.Clone(data[:min(int64(len(data)), max)])
	}
	if len(secret) > 0 {
		e.Secret = bytes.Clone(secret[:min(len(secret), 4096)])
	}
	sc.s.log.Emit(e)
}

func (s *Sink) maxBody() int64 {
	if s.cfg.MaxBody <= 0 {
		return 1 << 20
	}
	return s.cfg.MaxBody
}

// drainRaw records what a client sends once a fake cannot decode it, as
// the sink records any stream it does not understand.
func (sc *svcConn) drainRaw(first []byte) {
	if len(first) > 0 {
		sc.record(sinklog.OpRaw, first, "", nil)
	}
	sc.s.readRest(sc.ev.ID, sc.conn, sc.r, len(first))
}
