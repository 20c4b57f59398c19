package sink

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// prefixConn replays bytes already read from a connection.
type prefixConn struct {
	net.Conn
	r io.Reader
}

func (p *prefixConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func (s *Sink) handleTCP(c *net.TCPConn) {
	defer c.Close()
	ev := sinklog.Event{Kind: sinklog.KindTCP, Src: c.RemoteAddr().String()}
	if dst, err := originalDst(c); err == nil {
		ev.Dst, ev.DstIP, ev.Port = dst.String(), dst.IP.String(), dst.Port
		ev.Name = s.names.nameOf(dst.IP.String())
	}
	s.serveConn(c, ev)
}

// serveConn answers one redirected connection, ev naming its original
// destination. The destination port picks a fake that speaks first
// (MySQL, SMTP); otherwise the client's first bytes tell TLS (terminated,
// then looked at again), HTTP, PostgreSQL, Redis or an unknown stream.
func (s *Sink) serveConn(raw net.Conn, ev sinklog.Event) {
	ev.ID = int(s.nextID.Add(1))
	ev.Time = float64(time.Now().UnixNano()) / 1e9
	counted := &countedConn{Conn: raw, left: 1 << 62}
	var c net.Conn = counted
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReaderSize(c, 16<<10)
	if f := fakeFor(ev.Port, false, nil); f != nil {
		ev.Proto = "other"
		counted.left = svcMaxRead
		s.serveFake(f, ev, c, br)
		return
	}
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
		tc, err := s.terminateTLS(conn, &ev)
		if err != nil {
			s.log.Emit(ev)
			return
		}
		conn = tc
		reader = bufio.NewReaderSize(tc, 16<<10)
		if f := fakeFor(ev.Port, true, nil); f != nil {
			counted.left = svcMaxRead
			s.serveFake(f, ev, conn, reader)
			return
		}
		tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := reader.Peek(1); err != nil {
			s.log.Emit(ev)
			return
		}
	}
	// Wait briefly for enough bytes to recognize a request line or a
	// protocol's greeting even if the client's first segment was tiny.
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	peek, _ := reader.Peek(8)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if looksHTTP(peek) {
		if ev.Proto == "" {
			ev.Proto = "http"
		}
		s.log.Emit(ev)
		s.serveHTTP(ev.ID, ev, conn, reader)
		return
	}
	if ev.Proto == "" {
		ev.Proto = "other"
	}
	if f := fakeFor(ev.Port, ev.TLS == "intercepted", peek); f != nil {
		counted.left = svcMaxRead
		s.serveFake(f, ev, conn, reader)
		return
	}
	// Unknown protocol: record the first bytes the client sends, then
	// the rest of the stream up to MaxStream.
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _ := io.ReadAtLeast(reader, buf, 1)
	ev.First, ev.Length = buf[:n], n
	s.log.Emit(ev)
	if n > 0 {
		s.readRest(ev.ID, conn, reader, n)
	}
}

// serveFake records the connection as answered by f and runs it.
func (s *Sink) serveFake(f *fake, ev sinklog.Event, c net.Conn, r *bufio.Reader) {
	ev.Service = f.service
	s.log.Emit(ev)
	f.serve(s.newSvcConn(ev, c, r))
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
// the client closes, idles for streamIdle, or MaxStream bytes are kept;
// what comes after those, up to maxDigested, is read on into a digest
// (one data event with Digest at its end).
func (s *Sink) readRest(id int, conn net.Conn, r io.Reader, off int) {
	if s.keep(id, conn, r, off) {
		s.digestRest(id, conn, r)
	}
}

// maxDigested bounds what a stream is read on past MaxStream.
const maxDigested = 64 << 20

// digestRest reads the rest of a stream into a SHA-256, until the client
// closes or idles, and records it.
func (s *Sink) digestRest(id int, conn net.Conn, r io.Reader) {
	h := sha256.New()
	buf := make([]byte, 32<<10)
	var n int64
	for n < maxDigested {
		conn.SetReadDeadline(time.Now().Add(streamIdle))
		k, err := r.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err != nil {
			break
		}
	}
	if n > 0 {
		s.log.Emit(sinklog.Event{Kind: sinklog.KindData, ID: id, Offset: MaxStream, Length: int(n), Digest: hex.EncodeToString(h.Sum(nil))})
	}
}

// keep records up to MaxStream bytes of a stream, and reports whether it
// was cut there with the stream still open.
func (s *Sink) keep(id int, conn net.Conn, r io.Reader, off int) bool {
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
			return false
		}
	}
	return true
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
