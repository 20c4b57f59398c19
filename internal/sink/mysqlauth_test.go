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
	"net"
	"strings"
	"testing"
	"time"
)

// rawMySQL is a client speaking MySQL's packets by hand, for the paths
// no current driver takes.
type rawMySQL struct {
	t   *testing.T
	c   net.Conn
	seq byte
}

func (r *rawMySQL) read() []byte {
	r.t.Helper()
	var h [4]byte
	if _, err := io.ReadFull(r.c, h[:]); err != nil {
		r.t.Fatalf("reading a packet: %v", err)
	}
	b := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(r.c, b); err != nil {
		r.t.Fatal(err)
	}
	r.seq = h[3] + 1
	return b
}

func (r *rawMySQL) send(b []byte) {
	r.c.Write(append([]byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), r.seq}, b...))
	r.seq++
}

// TestMySQLFakeSwitchesOldClientsToRecoverThePassword: a client that logs
// in with mysql_native_password, as older drivers do whatever the server
// offers, is switched to caching_sha2_password, asks for the public key,
// sends its password encrypted to it, and is let in; the fake records the
// password it decrypted.
func TestMySQLFakeSwitchesOldClientsToRecoverThePassword(t *testing.T) {
	fs := startFake(t, "db.fixture.example", 3306)
	c, err := net.Dial("tcp", fs.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	r := &rawMySQL{t: t, c: c}
	if g := r.read(); g[0] != 10 || !bytes.Contains(g, []byte("caching_sha2_password")) {
		t.Fatalf("greeting %q", g)
	}
	caps := uint32(myProtocol41 | mySecureConn | myPluginAuth | myConnectWithDB)
	hr := binary.LittleEndian.AppendUint32(nil, caps)
	hr = append(hr, 0, 0, 0, 1, 33)
	hr = append(hr, make([]byte, 23)...)
	hr = append(hr, "old-client\x00"...)
	hr = append(append(hr, 20), bytes.Repeat([]byte{7}, 20)...)
	hr = append(hr, "audit\x00mysql_native_password\x00"...)
	r.send(hr)
	sw := r.read()
	scramble, ok := bytes.CutPrefix(sw, []byte("\xfecaching_sha2_password\x00"))
	if !ok || len(scramble) != 21 {
		t.Fatalf("auth switch %q", sw)
	}
	scramble = scramble[:20]
	r.send(bytes.Repeat([]byte{9}, 32)) // the caching_sha2 token
	if more := r.read(); !bytes.Equal(more, []byte{1, 4}) {
		t.Fatalf("want perform-full-authentication, got %q", more)
	}
	r.send([]byte{2})
	keyPkt := r.read()
	block, _ := pem.Decode(keyPkt[1:])
	if keyPkt[0] != 1 || block == nil {
		t.Fatalf("public key packet %q", keyPkt)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("pw-switched\x00")
	for i := range plain {
		plain[i] ^= scramble[i%len(scramble)]
	}
	enc, err := rsa.EncryptOAEP(sha1.New(), rand.Reader, pub.(*rsa.PublicKey), plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.send(enc)
	if ok := r.read(); ok[0] != 0 {
		t.Fatalf("want OK, got %q", ok)
	}
	r.seq = 0
	r.send([]byte("\x03SELECT 1"))
	if n := r.read(); n[0] != 1 {
		t.Fatalf("want a one-column result, got %q", n)
	}
	got := strings.Join(fs.payloads(t), "\n")
	if !strings.Contains(got, "mysql auth user=old-client secret=pw-switched") || !strings.Contains(got, "plugin=mysql_native_password") {
		t.Errorf("payloads:\n%s", got)
	}
}
