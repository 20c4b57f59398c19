package sink

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"io"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// MySQL capability flags the fake offers: protocol 4.1 with plugin
// authentication, connection attributes and TLS; no compression, no
// deprecated-EOF (classic EOF packets every client still reads).
const (
	myConnectWithDB  = 0x8
	myProtocol41     = 0x200
	mySSL            = 0x800
	mySecureConn     = 0x8000
	myPluginAuth     = 0x80000
	myConnectAttrs   = 0x100000
	myLenencAuthData = 0x200000
	myCaps           = 0x1 | 0x2 | 0x4 | myConnectWithDB | 0x100 | myProtocol41 | 0x400 | mySSL | 0x2000 | mySecureConn |
		0x10000 | 0x20000 | 0x40000 | myPluginAuth | myConnectAttrs | myLenencAuthData
	myStatusAutocommit = 0x2
)

// mySession is one connection to the MySQL fake.
type mySession struct {
	sc       *svcConn
	d        sqlDialect
	seq      byte
	scramble []byte
	stmts    map[uint32]*myStmt
	nextStmt uint32
}

// serveMySQL greets first with a handshake v10 offering
// caching_sha2_password, takes any login, recovers the password (in
// clear over TLS, RSA-encrypted to the sink's key otherwise) to record it
// as a secret, and answers queries and prepared statements from the
// seeded schema.
func serveMySQL(sc *svcConn) {
	ms := &mySession{sc: sc, d: sqlDialect{mysql: true}, stmts: map[uint32]*myStmt{}, scramble: newScramble()}
	if !ms.handshake() {
		return
	}
	for {
		ms.seq = 0
		if sc.next() != nil {
			return
		}
		p, err := ms.read()
		if err != nil || len(p) == 0 {
			return
		}
		if !ms.command(p[0], p[1:]) {
			return
		}
	}
}

// newScramble is 20 random bytes without NUL, as servers send.
func newScramble() []byte {
	b := make([]byte, 20)
	rand.Read(b)
	for i := range b {
		b[i] = b[i]%126 + 1
	}
	return b
}

// read reads one packet (joining a payload split over full packets).
func (ms *mySession) read() ([]byte, error) {
	var out []byte
	for {
		var h [4]byte
		if _, err := io.ReadFull(ms.sc.r, h[:]); err != nil {
			return nil, err
		}
		n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
		ms.seq = h[3] + 1
		if len(out)+n > svcMaxMsg {
			return nil, errSvcBound
		}
		b, err := ms.sc.readFull(n)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		if n < 0xffffff {
			return out, nil
		}
	}
}

// send writes packets, numbering them on from the client's.
func (ms *mySession) send(payloads ...[]byte) bool {
	var buf bytes.Buffer
	for _, p := range payloads {
		buf.Write([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), ms.seq})
		buf.Write(p)
		ms.seq++
	}
	return ms.sc.write(buf.Bytes()) == nil
}

func (ms *mySession) greeting() []byte {
	var b bytes.Buffer
	b.WriteByte(10)
	b.WriteString(mysqlVersion + "\x00")
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(ms.sc.ev.ID)))
	b.Write(ms.scramble[:8])
	b.WriteByte(0)
	b.Write(binary.LittleEndian.AppendUint16(nil, uint16(myCaps&0xffff)))
	b.WriteByte(255) // utf8mb4_0900_ai_ci
	b.Write(binary.LittleEndian.AppendUint16(nil, myStatusAutocommit))
	b.Write(binary.LittleEndian.AppendUint16(nil, uint16(myCaps>>16)))
	b.WriteByte(21)
	b.Write(make([]byte, 10))
	b.Write(ms.scramble[8:])
	b.WriteByte(0)
	b.WriteString("caching_sha2_password\x00")
	return b.Bytes()
}

// handshake greets, reads the client's answer (after a TLS upgrade if
// it asks for one), and authenticates it.
func (ms *mySession) handshake() bool {
	sc := ms.sc
	if !ms.send(ms.greeting()) || sc.next() != nil {
		return false
	}
	p, err := ms.read()
	if err != nil {
		return false
	}
	if len(p) == 32 && binary.LittleEndian.Uint32(p)&mySSL != 0 && !sc.tlsDone {
		if sc.startTLS() != nil || sc.next() != nil {
			return false
		}
		if p, err = ms.read(); err != nil {
			return false
		}
	}
	hr, ok := parseHandshakeResponse(p)
	if !ok {
		sc.drainRaw(p)
		return false
	}
	ms.d.database, ms.d.user = hr.db, hr.user
	sc.record(sinklog.OpStartup, []byte(hr.describe()), hr.user, nil)
	secret, ok := ms.authenticate(hr)
	if !ok {
		return false
	}
	if secret != nil {
		sc.record(sinklog.OpAuth, nil, hr.user, secret)
	} else {
		sc.record(sinklog.OpAuth, []byte("no password"), hr.user, nil)
	}
	return ms.send(myOK(0, 0))
}

// authenticate runs caching_sha2_password's full authentication, which
// has the client send its password: in clear over TLS, encrypted to the
// sink's RSA key otherwise. A client that logged in with another plugin
// is switched to it first. It returns the password (nil when empty).
func (ms *mySession) authenticate(hr handshakeResponse) ([]byte, bool) {
	if len(hr.auth) == 0 {
		return nil, true // no password: the client has none
	}
	switch hr.plugin {
	case "mysql_clear_password":
		return bytes.TrimRight(hr.auth, "\x00"), true
	case "caching_sha2_password":
	default:
		ms.scramble = newScramble()
		if !ms.send(append(append([]byte("\xfecaching_sha2_password\x00"), ms.scramble...), 0)) || ms.sc.next() != nil {
			return nil, false
		}
		tok, err := ms.read()
		if err != nil {
			return nil, false
		}
		if len(tok) == 0 {
			return nil, true
		}
	}
	if !ms.send([]byte{1, 4}) || ms.sc.next() != nil { // perform full authentication
		return nil, false
	}
	p, err := ms.read()
	if err != nil {
		return nil, false
	}
	if ms.sc.tlsDone {
		return bytes.TrimRight(p, "\x00"), true
	}
	key := ms.sc.s.rsaKey()
	if len(p) == 1 && p[0] == 2 { // the client asks for the public key
		der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
		pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		if !ms.send(append([]byte{1}, pemKey...)) || ms.sc.next() != nil {
			return nil, false
		}
		if p, err = ms.read(); err != nil {
			return nil, false
		}
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, key, p, nil)
	if err != nil {
		// Not encrypted to this key: keep what was sent.
		return p, true
	}
	for i := range plain {
		plain[i] ^= ms.scramble[i%len(ms.scramble)]
	}
	return bytes.TrimRight(plain, "\x00"), true
}

// handshakeResponse is what a client logs in with.
type handshakeResponse struct {
	caps             uint32
	user, db, plugin string
	auth             []byte
	attrs            []string
}

func (hr handshakeResponse) describe() string {
	var b strings.Builder
	b.WriteString("database=" + hr.db + "\nplugin=" + hr.plugin + "\n")
	for i := 0; i+1 < len(hr.attrs); i += 2 {
		b.WriteString(hr.attrs[i] + "=" + hr.attrs[i+1] + "\n")
	}
	return b.String()
}

func parseHandshakeResponse(p []byte) (handshakeResponse, bool) {
	var hr handshakeResponse
	if len(p) < 32 {
		return hr, false
	}
	hr.caps = binary.LittleEndian.Uint32(p)
	if hr.caps&myProtocol41 == 0 {
		return hr, false
	}
	r := &myReader{b: p[32:]}
	hr.user = r.cstring()
	switch {
	case hr.caps&myLenencAuthData != 0:
		hr.auth = r.lenencBytes()
	case hr.caps&mySecureConn != 0:
		hr.auth = r.n(int(r.byte1()))
	default:
		hr.auth = []byte(r.cstring())
	}
	if hr.caps&myConnectWithDB != 0 && len(r.b) > 0 {
		hr.db = r.cstring()
	}
	if hr.caps&myPluginAuth != 0 && len(r.b) > 0 {
		hr.plugin = r.cstring()
	}
	if hr.caps&myConnectAttrs != 0 && len(r.b) > 0 {
		attrs := &myReader{b: r.lenencBytes()}
		for len(attrs.b) > 0 && !attrs.bad && len(hr.attrs) < 64 {
			hr.attrs = append(hr.attrs, string(attrs.lenencBytes()))
		}
	}
	return hr, !r.bad
}

// rsaKey is the sink's key for caching_sha2_password, made on first use.
func (s *Sink) rsaKey() *rsa.PrivateKey {
	s.rsaOnce.Do(func() {
		if s.rsa == nil {
			s.rsa, _ = rsa.GenerateKey(rand.Reader, 2048)
		}
	})
	return s.rsa
}
