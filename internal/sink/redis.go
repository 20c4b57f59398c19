package sink

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// maxRESPArgs bounds the arguments of one Redis command.
const maxRESPArgs = 100_000

var errRESP = errors.New("malformed RESP")

// readRESPCommand reads one command: an array of bulk strings, or an
// inline command line. Both are bounded by svcMaxMsg.
func readRESPCommand(r *bufio.Reader) ([][]byte, error) {
	line, err := readRESPLine(r)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 || line[0] != '*' {
		return splitInline(line), nil
	}
	n, err := strconv.Atoi(string(line[1:]))
	if err != nil || n > maxRESPArgs {
		return nil, errRESP
	}
	args := make([][]byte, 0, min(max(n, 0), 64))
	total := 0
	for range max(n, 0) {
		h, err := readRESPLine(r)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 || h[0] != '$' {
			return nil, errRESP
		}
		k, err := strconv.Atoi(string(h[1:]))
		if err != nil || k < 0 || total+k > svcMaxMsg {
			return nil, errRESP
		}
		total += k
		b := make([]byte, k+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args = append(args, b[:k])
	}
	return args, nil
}

// readRESPLine reads a line ending in \r\n (or \n), without its end,
// refusing lines longer than the reader's buffer.
func readRESPLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errRESP
		}
		return nil, err
	}
	return bytes.Clone(bytes.TrimRight(line, "\r\n")), nil
}

// splitInline splits an inline command at spaces, honouring double
// quotes.
func splitInline(line []byte) [][]byte {
	var out [][]byte
	var cur []byte
	quoted, in := false, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted, in = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if in {
				out, cur, in = append(out, cur), nil, false
			}
		default:
			cur, in = append(cur, c), true
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

// respWriter builds replies in RESP2 or, after HELLO 3, RESP3.
type respWriter struct {
	bytes.Buffer
	proto int
}

func (w *respWriter) simple(s string) { w.WriteString("+" + s + "\r\n") }
func (w *respWriter) err(s string)    { w.WriteString("-" + s + "\r\n") }
func (w *respWriter) int(n int)       { w.WriteString(":" + strconv.Itoa(n) + "\r\n") }
func (w *respWriter) bulk(b []byte) {
	w.WriteString("$" + strconv.Itoa(len(b)) + "\r\n")
	w.Write(b)
	w.WriteString("\r\n")
}
func (w *respWriter) null() {
	if w.proto == 3 {
		w.WriteString("_\r\n")
		return
	}
	w.WriteString("$-1\r\n")
}
func (w *respWriter) array(n int) { w.WriteString("*" + strconv.Itoa(n) + "\r\n") }

// mapHead starts a map of n pairs: RESP3's map, RESP2's flat array.
func (w *respWriter) mapHead(n int) {
	if w.proto == 3 {
		w.WriteString("%" + strconv.Itoa(n) + "\r\n")
		return
	}
	w.array(2 * n)
}

func (w *respWriter) bulks(items [][]byte) {
	w.array(len(items))
	for _, b := range items {
		w.bulk(b)
	}
}

// serveRedis answers RESP2 and RESP3 clients: any AUTH or HELLO AUTH is
// accepted (and recorded, the password as a secret), strings, hashes and
// lists live in a small store shared by the run's connections, and
// other commands get +OK.
func serveRedis(sc *svcConn) {
	rs := &redisSession{sc: sc, w: &respWriter{proto: 2}}
	for {
		if sc.next() != nil {
			return
		}
		args, err := readRESPCommand(sc.r)
		if err != nil {
			if errors.Is(err, errRESP) {
				b, _ := sc.r.Peek(sc.r.Buffered())
				sc.drainRaw(bytes.Clone(b))
			}
			return
		}
		if len(args) == 0 {
			continue
		}
		rs.w.Reset()
		quit := rs.command(args)
		if rs.w.Len() > 0 && sc.write(rs.w.Bytes()) != nil || quit {
			return
		}
	}
}

type redisSession struct {
	sc    *svcConn
	w     *respWriter
	multi []([][]byte) // commands queued after MULTI
	inTx  bool
}

// command answers one command into rs.w and reports whether to close.
func (rs *redisSession) command(args [][]byte) bool {
	name := strings.ToUpper(string(args[0]))
	switch name {
	case "AUTH":
		user, pass := "default", args[len(args)-1]
		if len(args) > 2 {
			user = string(args[1])
		}
		rs.sc.record(sinklog.OpAuth, nil, user, pass)
		rs.w.simple("OK")
		return false
	case "HELLO":
		rs.hello(args)
		return false
	case "QUIT":
		rs.sc.record(sinklog.OpCommand, []byte("QUIT"), "", nil)
		rs.w.simple("OK")
		return true
	}
	rs.sc.record(sinklog.OpCommand, bytes.Join(args, []byte(" ")), "", nil)
	switch {
	case name == "MULTI":
		rs.inTx, rs.multi = true, nil
		rs.w.simple("OK")
	case name == "DISCARD":
		rs.inTx, rs.multi = false, nil
		rs.w.simple("OK")
	case name == "EXEC":
		queued := rs.multi
		rs.inTx, rs.multi = false, nil
		rs.w.array(len(queued))
		for _, q := range queued {
			rs.sc.s.store.apply(rs.w, q)
		}
	case rs.inTx:
		if len(rs.multi) < 10_000 {
			rs.multi = append(rs.multi, args)
		}
		rs.w.simple("QUEUED")
	default:
		rs.sc.s.store.apply(rs.w, args)
	}
	return false
}

// hello answers HELLO [protover [AUTH user pass] [SETNAME name]].
func (rs *redisSession) hello(args [][]byte) {
	proto := rs.w.proto
	if len(args) > 1 {
		p, err := strconv.Atoi(string(args[1]))
		if err != nil || p < 2 || p > 3 {
			rs.w.err("NOPROTO unsupported protocol version")
			return
		}
		proto = p
	}
	var rec [][]byte
	for i := 2; i < len(args); i++ {
		if strings.EqualFold(string(args[i]), "AUTH") && i+2 < len(args) {
			rs.sc.record(sinklog.OpAuth, nil, string(args[i+1]), args[i+2])
			i += 2
			continue
		}
		rec = append(rec, args[i])
	}
	rs.sc.record(sinklog.OpCommand, append([]byte("HELLO "+strconv.Itoa(proto)+" "), bytes.Join(rec, []byte(" "))...), "", nil)
	rs.w.proto = proto
	rs.w.mapHead(7)
	for _, kv := range [][2]string{{"server", "redis"}, {"version", redisVersion}} {
		rs.w.bulk([]byte(kv[0]))
		rs.w.bulk([]byte(kv[1]))
	}
	rs.w.bulk([]byte("proto"))
	rs.w.int(proto)
	rs.w.bulk([]byte("id"))
	rs.w.int(rs.sc.ev.ID)
	for _, kv := range [][2]string{{"mode", "standalone"}, {"role", "master"}} {
		rs.w.bulk([]byte(kv[0]))
		rs.w.bulk([]byte(kv[1]))
	}
	rs.w.bulk([]byte("modules"))
	rs.w.array(0)
}
