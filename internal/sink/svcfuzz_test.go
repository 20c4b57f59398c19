package sink

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

var (
	fuzzKeyOnce sync.Once
	fuzzKey     *rsa.PrivateKey
	fuzzMint    *certMinter
)

// fuzzSession runs one fake over an in-memory connection fed data, the
// answers discarded. The session must end when the input does, without a
// panic, and leave a log that reads back whole.
func fuzzSession(t *testing.T, f *fake, port int, data []byte) {
	fuzzKeyOnce.Do(func() {
		fuzzKey, _ = rsa.GenerateKey(rand.Reader, 2048)
		certPEM, keyPEM, _ := NewCA()
		fuzzMint, _ = newMinter(certPEM, keyPEM)
	})
	log := &syncBuffer{}
	s := &Sink{cfg: sinklog.Config{MaxBody: 1 << 16}, log: NewLog(log, 4<<20), names: newNameTable(), certs: fuzzMint, rsa: fuzzKey}
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close()
		ev := sinklog.Event{Kind: sinklog.KindTCP, ID: 1, Name: "svc.fuzz.example", Port: port, Service: f.service}
		f.serve(s.newSvcConn(ev, server, bufio.NewReaderSize(server, 16<<10)))
	}()
	go io.Copy(io.Discard, client)
	client.SetWriteDeadline(time.Now().Add(5 * time.Second))
	client.Write(data)
	client.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with its input")
	}
	log.events(t)
}

func pgMessage(typ byte, body string) string {
	n := binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))
	if typ == 0 {
		return string(n) + body
	}
	return string(typ) + string(n) + body
}

func FuzzPostgresSession(f *testing.F) {
	startup := pgMessage(0, "\x00\x03\x00\x00user\x00audit\x00database\x00audit\x00\x00")
	f.Add([]byte(startup + pgMessage('p', "pw\x00") + pgMessage('Q', "SELECT * FROM users; SHOW x\x00") + pgMessage('X', "")))
	f.Add([]byte(startup + pgMessage('p', "pw\x00") + pgMessage('P', "s1\x00SELECT name FROM users WHERE id = $1\x00\x00\x00") +
		pgMessage('B', "\x00s1\x00\x00\x01\x00\x01\x00\x00\x00\x012\x00\x01\x00\x01") + pgMessage('D', "P\x00") +
		pgMessage('E', "\x00\x00\x00\x00\x00") + pgMessage('S', "")))
	f.Add([]byte(pgMessage(0, "\x04\xd2\x16\x2f") + "\x16\x03\x01\x00\x05hello"))
	f.Add([]byte(pgMessage(0, "\x00\x03\x00\x02_pq_.x\x00y\x00\x00")))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzSession(t, fakePostgres, 5432, data) })
}

func FuzzMySQLSession(f *testing.F) {
	packet := func(seq byte, body string) string {
		return string([]byte{byte(len(body)), byte(len(body) >> 8), byte(len(body) >> 16), seq}) + body
	}
	caps := string(binary.LittleEndian.AppendUint32(nil, myCaps&^mySSL))
	hello := caps + "\x00\x00\x00\x01\xff" + strings.Repeat("\x00", 23) + "audit\x00\x20" + strings.Repeat("x", 32) +
		"audit\x00caching_sha2_password\x00\x05\x03_os\x01x"
	f.Add([]byte(packet(1, hello) + packet(3, "\x02") + packet(5, strings.Repeat("e", 256)) + packet(0, "\x03SHOW TABLES") +
		packet(0, "\x16SELECT * FROM users WHERE id = ?") + packet(0, "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x08\x00\x02\x00\x00\x00\x00\x00\x00\x00") +
		packet(0, "\x01")))
	f.Add([]byte(packet(1, caps+strings.Repeat("\x00", 28))))
	f.Add([]byte(packet(1, hello) + packet(3, "\x01")))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzSession(t, fakeMySQL, 3306, data) })
}

func FuzzRedisSession(f *testing.F) {
	f.Add([]byte("*3\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nPING\r\nMULTI\r\nINCR c\r\nEXEC\r\nHSET h a b\r\nHGETALL h\r\nLRANGE l 0 -1\r\nQUIT\r\n"))
	f.Add([]byte("*99999999\r\n$-1\r\n"))
	f.Add([]byte("\"unterminated quote\r\nKEYS [\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzSession(t, fakeRedis, 6379, data) })
}

func FuzzSMTPSession(f *testing.F) {
	f.Add([]byte("EHLO x\r\nAUTH PLAIN AGF1ZGl0AHB3\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.com>\r\nDATA\r\nSubject: x\r\n\r\n..dot\r\n.\r\nQUIT\r\n"))
	f.Add([]byte("EHLO x\r\nAUTH LOGIN\r\ndXNlcg==\r\ncGFzcw==\r\nAUTH XOAUTH2 dXNlcj1hAWF1dGg9QmVhcmVyIHQBAQ==\r\nSTARTTLS\r\n\x16\x03\x01"))
	f.Add([]byte("DATA\r\n" + strings.Repeat("x", 70000)))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzSession(t, fakeSMTP, 587, data) })
}

// FuzzAnswerSQL: any statement and parameters get an answer whose rows
// fit its columns.
func FuzzAnswerSQL(f *testing.F) {
	for _, q := range []string{"SELECT * FROM users LIMIT 1, 1", "select count(*), x.y z from information_schema.columns where table_name = $1",
		"WITH a AS (SELECT 1) SELECT * FROM a", "SHOW FULL TABLES", "DESCRIBE `x`", "INSERT INTO t VALUES (?) RETURNING *", "'", "/*", "SELECT ((((", "SHOW CREATE TABLE users"} {
		f.Add(q, "orders", true)
	}
	f.Fuzz(func(t *testing.T, q, param string, mysql bool) {
		r := answerSQL(sqlDialect{mysql: mysql}, q, []string{param})
		for _, row := range r.rows {
			if len(row) != len(r.cols) {
				t.Fatalf("%q: a row of %d values for %d columns", q, len(row), len(r.cols))
			}
		}
		splitStatements(q)
		countParams(q)
	})
}

// FuzzShapeResponse: any request gets a well-formed answer of bounded
// size.
func FuzzShapeResponse(f *testing.F) {
	f.Add("POST", "/graphql", `{"query":"fragment F on T { a ...F } query Q { x { ...F b(c: [1, {d: 2}]) @skip(if: true) { ... on U { e } } } }","operationName":"Q"}`)
	f.Add("GET", "/v1/users?page=2", "")
	f.Add("POST", "/v1/items", `{"name":"x","id":3}`)
	f.Add("POST", "/api/graphql", `[{"query":"{ a { b } }"}]`)
	f.Add("GET", "/graphql?query=%7Ba%7D", "")
	f.Fuzz(func(t *testing.T, method, target, body string) {
		req, err := http.NewRequest(method, "http://api.example"+target, strings.NewReader(body))
		if err != nil {
			return
		}
		r := shapeResponse(req, []byte(body), []string{"resultObj", "total_count", "items", "success"})
		if r.Status == 0 || r.ContentType == "" || len(r.Body) > 1<<20+len(body)*2 {
			t.Fatalf("answer %d %q of %d bytes", r.Status, r.ContentType, len(r.Body))
		}
	})
}
