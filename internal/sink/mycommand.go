package sink

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// myStmt is a prepared statement: its text, its parameter count and the
// parameter types last bound.
type myStmt struct {
	query  string
	params int
	types  []byte
	long   map[int][]byte // values sent with COM_STMT_SEND_LONG_DATA
}

// maxMyStmts bounds the prepared statements of one connection.
const maxMyStmts = 1000

// command answers one command; false ends the session.
func (ms *mySession) command(cmd byte, body []byte) bool {
	sc := ms.sc
	switch cmd {
	case 0x01: // COM_QUIT
		return false
	case 0x02: // COM_INIT_DB
		ms.d.database = string(body)
		sc.record(sinklog.OpQuery, append([]byte("USE "), body...), "", nil)
		return ms.send(myOK(0, 0))
	case 0x03: // COM_QUERY
		q := string(body)
		sc.record(sinklog.OpQuery, body, "", nil)
		r := answerSQL(ms.d, q, nil)
		if strings.EqualFold(strings.Fields(q + " x")[0], "use") {
			if f := strings.Fields(q); len(f) > 1 {
				ms.d.database = strings.Trim(f[1], "`;")
			}
		}
		if r.cols == nil {
			return ms.send(myOK(uint64(r.affected), uint64(r.insertID)))
		}
		return ms.send(ms.resultSet(r, false)...)
	case 0x04: // COM_FIELD_LIST
		return ms.send(myEOF())
	case 0x09: // COM_STATISTICS
		return ms.send([]byte("Uptime: 86400  Threads: 1  Questions: 10  Slow queries: 0  Opens: 10  Flush tables: 1  Open tables: 3  Queries per second avg: 0.000"))
	case 0x0e, 0x1a, 0x1f: // COM_PING, COM_STMT_RESET, COM_RESET_CONNECTION
		return ms.send(myOK(0, 0))
	case 0x11: // COM_CHANGE_USER
		r := &myReader{b: body}
		user := r.cstring()
		sc.record(sinklog.OpAuth, []byte("change user"), user, nil)
		return ms.send(myOK(0, 0))
	case 0x16: // COM_STMT_PREPARE
		return ms.prepare(string(body))
	case 0x17: // COM_STMT_EXECUTE
		return ms.execute(body)
	case 0x18: // COM_STMT_SEND_LONG_DATA: no answer
		r := &myReader{b: body}
		st, param := ms.stmts[uint32(r.uint(4))], int(r.uint(2))
		sc.record(sinklog.OpQuery, append([]byte("?"+strconv.Itoa(param+1)+"="), r.b...), "", nil)
		if st != nil && len(st.long[param]) < svcMaxMsg {
			st.long[param] = append(st.long[param], r.b...)
		}
		return true
	case 0x19: // COM_STMT_CLOSE: no answer
		if len(body) >= 4 {
			delete(ms.stmts, binary.LittleEndian.Uint32(body))
		}
		return true
	case 0x1b: // COM_SET_OPTION
		return ms.send(myEOF())
	}
	sc.record(sinklog.OpRaw, append([]byte{cmd}, body...), "", nil)
	return ms.send(myErr(1047, "08S01", "Unknown command"))
}

// prepare answers COM_STMT_PREPARE with the statement's parameters and
// the columns it would return.
func (ms *mySession) prepare(q string) bool {
	ms.sc.record(sinklog.OpQuery, []byte(q), "", nil)
	n := 0
	for _, t := range sqlTokens(q) {
		if t.kind == 'p' && strings.HasPrefix(t.text, "?") {
			n++
		}
	}
	n = min(n, 0xffff)
	r := answerSQL(ms.d, q, nil)
	ms.nextStmt++
	id := ms.nextStmt
	if len(ms.stmts) < maxMyStmts {
		ms.stmts[id] = &myStmt{query: q, params: n, long: map[int][]byte{}}
	}
	head := []byte{0}
	head = binary.LittleEndian.AppendUint32(head, id)
	head = binary.LittleEndian.AppendUint16(head, uint16(len(r.cols)))
	head = binary.LittleEndian.AppendUint16(head, uint16(n))
	head = append(head, 0, 0, 0)
	out := [][]byte{head}
	if n > 0 {
		for i := range n {
			out = append(out, ms.columnDef(sqlCol{"?" + strconv.Itoa(i+1), sqlText}))
		}
		out = append(out, myEOF())
	}
	if len(r.cols) > 0 {
		for _, c := range r.cols {
			out = append(out, ms.columnDef(c))
		}
		out = append(out, myEOF())
	}
	return ms.send(out...)
}

// execute decodes COM_STMT_EXECUTE's parameters, records them, and
// answers in the binary protocol.
func (ms *mySession) execute(body []byte) bool {
	r := &myReader{b: body}
	st := ms.stmts[uint32(r.uint(4))]
	if st == nil {
		return ms.send(myErr(1243, "HY000", "Unknown prepared statement handler given to mysqld_stmt_execute"))
	}
	r.n(5) // flags, iteration count
	params := make([]string, st.params)
	if st.params > 0 {
		bitmap := r.n((st.params + 7) / 8)
		if r.byte1() == 1 {
			st.types = r.n(2 * st.params)
		}
		var rec strings.Builder
		for i := range st.params {
			switch {
			case bitmap != nil && bitmap[i/8]&(1<<(i%8)) != 0:
				params[i] = "NULL"
			case st.long[i] != nil:
				params[i] = string(st.long[i])
			case 2*i+1 < len(st.types):
				params[i] = readMyValue(r, st.types[2*i], st.types[2*i+1]&0x80 != 0)
			}
			rec.WriteString("?" + strconv.Itoa(i+1) + "=" + params[i] + "\n")
		}
		clear(st.long)
		ms.sc.record(sinklog.OpQuery, []byte(rec.String()), "", nil)
	}
	res := answerSQL(ms.d, st.query, params)
	if res.cols == nil {
		return ms.send(myOK(uint64(res.affected), uint64(res.insertID)))
	}
	return ms.send(ms.resultSet(res, true)...)
}

// readMyValue reads one parameter of the binary protocol as text.
func readMyValue(r *myReader, typ byte, unsigned bool) string {
	signed := func(v uint64, bits int) string {
		if unsigned {
			return strconv.FormatUint(v, 10)
		}
		return strconv.FormatInt(int64(v<<(64-bits))>>(64-bits), 10)
	}
	switch typ {
	case 0x01: // TINY
		return signed(r.uint(1), 8)
	case 0x02, 0x0d: // SHORT, YEAR
		return signed(r.uint(2), 16)
	case 0x03, 0x09: // LONG, INT24
		return signed(r.uint(4), 32)
	case 0x08: // LONGLONG
		return signed(r.uint(8), 64)
	case 0x04: // FLOAT
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(r.uint(4)))), 'g', -1, 32)
	case 0x05: // DOUBLE
		return strconv.FormatFloat(math.Float64frombits(r.uint(8)), 'g', -1, 64)
	case 0x06: // NULL
		return "NULL"
	case 0x07, 0x0a, 0x0b, 0x0c: // TIMESTAMP, DATE, TIME, DATETIME
		b := r.n(int(r.byte1()))
		return myTime(b)
	}
	return string(r.lenencBytes())
}

func myTime(b []byte) string {
	if len(b) < 4 {
		return "0000-00-00"
	}
	s := strconv.Itoa(int(binary.LittleEndian.Uint16(b))) + "-" + pad2(b[2]) + "-" + pad2(b[3])
	if len(b) >= 7 {
		s += " " + pad2(b[4]) + ":" + pad2(b[5]) + ":" + pad2(b[6])
	}
	return s
}

func pad2(b byte) string {
	if b < 10 {
		return "0" + strconv.Itoa(int(b))
	}
	return strconv.Itoa(int(b))
}
