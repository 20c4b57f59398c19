package sink

import (
	"encoding/binary"
	"io"
	"sort"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// pgSession is one connection to the PostgreSQL fake: the startup
// parameters, the prepared statements and portals of the extended query
// protocol, and the transaction state ReadyForQuery reports.
type pgSession struct {
	sc      *svcConn
	d       sqlDialect
	stmts   map[string]string // name -> query
	portals map[string]pgPortal
	tx      byte
}

type pgPortal struct {
	query   string
	params  []string
	formats []int
}

// maxPgNames bounds the prepared statements and portals one connection
// keeps.
const maxPgNames = 1000

// servePostgres speaks PostgreSQL's protocol 3.0: it takes any startup
// (upgrading to TLS when asked), asks for the password in clear so that
// it can be searched, accepts it, and answers queries from the seeded
// schema.
func servePostgres(sc *svcConn) {
	ps := &pgSession{sc: sc, stmts: map[string]string{}, portals: map[string]pgPortal{}, tx: 'I'}
	if !ps.startup() {
		return
	}
	for {
		if sc.next() != nil {
			return
		}
		var head [5]byte
		if _, err := io.ReadFull(sc.r, head[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[1:]))
		body, err := sc.readFull(n - 4)
		if err != nil {
			return
		}
		if !ps.message(head[0], body) {
			return
		}
	}
}

// startup reads startup packets until the client's StartupMessage, then
// authenticates it. It reports whether the session goes on.
func (ps *pgSession) startup() bool {
	sc := ps.sc
	for range 4 {
		if sc.next() != nil {
			return false
		}
		var head [4]byte
		if _, err := io.ReadFull(sc.r, head[:]); err != nil {
			return false
		}
		n := int(binary.BigEndian.Uint32(head[:]))
		if n < 8 || n > 10000 {
			sc.drainRaw(head[:])
			return false
		}
		body, err := sc.readFull(n - 4)
		if err != nil {
			return false
		}
		r := &wireReader{b: body}
		switch code := r.i32(); {
		case code == pgSSLRequest && !sc.tlsDone:
			if sc.write([]byte{'S'}) != nil || sc.startTLS() != nil {
				return false
			}
		case code == pgSSLRequest || code == pgGSSENCRequest:
			if sc.write([]byte{'N'}) != nil {
				return false
			}
		case code>>16 == 3:
			return ps.login(code&0xffff, r)
		default:
			sc.record(sinklog.OpRaw, append(head[:], body...), "", nil)
			return false
		}
	}
	return false
}

// login records the startup parameters, asks for a cleartext password,
// records it and reports success with the parameters clients read.
func (ps *pgSession) login(minor int, r *wireReader) bool {
	sc := ps.sc
	params := map[string]string{}
	var keys, unknown []string
	for len(keys) < 64 {
		k := r.cstring()
		if k == "" || r.bad {
			break
		}
		params[k] = r.cstring()
		keys = append(keys, k)
		if strings.HasPrefix(k, "_pq_.") {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(keys)
	var desc strings.Builder
	for _, k := range keys {
		desc.WriteString(k + "=" + params[k] + "\n")
	}
	user := params["user"]
	ps.d = sqlDialect{database: orStr(params["database"], user), user: user}
	sc.record(sinklog.OpStartup, []byte(desc.String()), user, nil)
	var w pgWriter
	if minor > 0 || len(unknown) > 0 {
		w.msg('v', func(b *pgWriter) {
			b.i32(3 << 16)
			b.i32(len(unknown))
			for _, k := range unknown {
				b.cstr(k)
			}
		})
	}
	w.msg('R', func(b *pgWriter) { b.i32(3) }) // AuthenticationCleartextPassword
	if sc.write(w.Bytes()) != nil || sc.next() != nil {
		return false
	}
	var head [5]byte
	if _, err := io.ReadFull(sc.r, head[:]); err != nil {
		return false
	}
	body, err := sc.readFull(int(binary.BigEndian.Uint32(head[1:])) - 4)
	if err != nil {
		return false
	}
	if head[0] != 'p' {
		sc.drainRaw(append(head[:], body...))
		return false
	}
	sc.record(sinklog.OpAuth, nil, user, []byte(strings.TrimSuffix(string(body), "\x00")))
	w.Reset()
	w.msg('R', func(b *pgWriter) { b.i32(0) }) // AuthenticationOk
	for _, p := range [][2]string{{"application_name", params["application_name"]}, {"client_encoding", orStr(params["client_encoding"], "UTF8")},
		{"DateStyle", "ISO, MDY"}, {"integer_datetimes", "on"}, {"IntervalStyle", "postgres"}, {"is_superuser", "off"},
		{"server_encoding", "UTF8"}, {"server_version", pgVersion}, {"session_authorization", user},
		{"standard_conforming_strings", "on"}, {"TimeZone", "UTC"}} {
		w.msg('S', func(b *pgWriter) { b.cstr(p[0]); b.cstr(p[1]) })
	}
	w.msg('K', func(b *pgWriter) { b.i32(4242); b.i32(0x5ca1ab1e) })
	w.ready('I')
	return sc.write(w.Bytes()) == nil
}

// message answers one frontend message; false ends the session.
func (ps *pgSession) message(typ byte, body []byte) bool {
	sc := ps.sc
	r := &wireReader{b: body}
	var w pgWriter
	switch typ {
	case 'Q':
		q := r.cstring()
		sc.record(sinklog.OpQuery, []byte(q), "", nil)
		for _, stmt := range splitStatements(q) {
			res := ps.answer(stmt, nil)
			if res.cols != nil {
				w.rowDescription(res.cols, nil)
				w.dataRows(res, nil)
			}
			w.complete(res)
		}
		w.ready(ps.tx)
	case 'P':
		name, q := r.cstring(), r.cstring()
		sc.record(sinklog.OpQuery, []byte(q), "", nil)
		if len(ps.stmts) < maxPgNames || name == "" {
			ps.stmts[name] = q
		}
		w.msg('1', nil)
	case 'B':
		ps.bind(r, &w)
	case 'D':
		ps.describe(r, &w)
	case 'E':
		p := ps.portals[r.cstring()]
		res := ps.answer(p.query, p.params)
		w.dataRows(res, p.formats)
		w.complete(res)
	case 'S':
		w.ready(ps.tx)
	case 'C':
		kind, name := r.n(1), r.cstring()
		if len(kind) == 1 && kind[0] == 'S' {
			delete(ps.stmts, name)
		} else {
			delete(ps.portals, name)
		}
		w.msg('3', nil)
	case 'H':
	case 'X':
		return false
	case 'F':
		sc.record(sinklog.OpQuery, body, "", nil)
		w.msg('V', func(b *pgWriter) { b.i32(-1) })
		w.ready(ps.tx)
	default:
		// Copy data, a late password, or a message the fake does not know.
		sc.record(sinklog.OpRaw, append([]byte{typ}, body...), "", nil)
	}
	if w.Len() == 0 {
		return true
	}
	return sc.write(w.Bytes()) == nil
}
