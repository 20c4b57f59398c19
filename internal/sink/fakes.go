package sink

import (
	"bytes"
	"encoding/binary"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// fake is a service the sink answers as, at the protocol level.
type fake struct {
	service string
	serve   func(*svcConn)
}

var (
	fakePostgres = &fake{sinklog.ServicePostgres, servePostgres}
	fakeMySQL    = &fake{sinklog.ServiceMySQL, serveMySQL}
	fakeRedis    = &fake{sinklog.ServiceRedis, serveRedis}
	fakeSMTP     = &fake{sinklog.ServiceSMTP, serveSMTP}
)

// fakeFor picks the fake for a connection to port. With peek nil it
// answers for the protocols where the server speaks first, chosen by the
// port alone (MySQL's greeting, SMTP's banner; 465 is SMTP inside TLS);
// with the client's first bytes it recognizes PostgreSQL's startup on any
// port and Redis's commands on Redis's ports (RESP arrays on any).
func fakeFor(port int, afterTLS bool, peek []byte) *fake {
	if peek == nil {
		switch {
		case !afterTLS && port == 3306:
			return fakeMySQL
		case !afterTLS && (port == 25 || port == 587 || port == 2525), afterTLS && port == 465:
			return fakeSMTP
		}
		return nil
	}
	switch {
	case looksPostgres(peek):
		return fakePostgres
	case looksRESP(peek), (port == 6379 || port == 6380) && looksInlineRedis(peek):
		return fakeRedis
	}
	return nil
}

// PostgreSQL's first messages: a length, then protocol 3.x, or the codes
// of SSLRequest, GSSENCRequest and CancelRequest.
const (
	pgSSLRequest    = 80877103
	pgGSSENCRequest = 80877104
	pgCancelRequest = 80877102
)

func looksPostgres(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	n, code := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	switch {
	case code>>16 == 3 && code&0xffff <= 2:
		return n >= 8 && n <= 10000
	case code == pgSSLRequest || code == pgGSSENCRequest:
		return n == 8
	case code == pgCancelRequest:
		return n == 16
	}
	return false
}

// looksRESP: "*<digits>\r\n$" starts a command array.
func looksRESP(b []byte) bool {
	if len(b) < 4 || b[0] != '*' || !isDigit(b[1]) {
		return false
	}
	i := 1
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i+2 < len(b) && b[i] == '\r' && b[i+1] == '\n' && b[i+2] == '$' || i == len(b) || i+1 == len(b) && b[i] == '\r' ||
		i+2 == len(b) && b[i] == '\r' && b[i+1] == '\n'
}

var inlineRedis = [][]byte{[]byte("PING"), []byte("AUTH"), []byte("HELLO"), []byte("INFO"), []byte("SELECT"),
	[]byte("GET "), []byte("SET "), []byte("QUIT"), []byte("CLIENT"), []byte("ECHO"), []byte("KEYS"), []byte("COMMAND")}

func looksInlineRedis(b []byte) bool {
	u := bytes.ToUpper(b)
	for _, w := range inlineRedis {
		if bytes.HasPrefix(u, w) || len(u) < len(w) && bytes.HasPrefix(w, u) && len(u) >= 4 {
			return true
		}
	}
	return false
}
