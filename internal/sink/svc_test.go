package sink

import (
	"bytes"
	"crypto/x509"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// syncBuffer is a log the test reads while the sink writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) events(t *testing.T) []sinklog.Event {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	evs, st := sinklog.Read(b.b.Bytes(), 0)
	if st.Malformed != 0 {
		t.Fatalf("sink log has %d malformed lines", st.Malformed)
	}
	return evs
}

// fakeServer is a sink answering on loopback as if every connection had
// been redirected from name:port.
type fakeServer struct {
	addr  string
	roots *x509.CertPool
	log   *syncBuffer
}

func startFake(t *testing.T, name string, port int) *fakeServer {
	t.Helper()
	certPEM, keyPEM, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMinter(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{roots: x509.NewCertPool(), log: &syncBuffer{}}
	fs.roots.AppendCertsFromPEM(certPEM)
	s := &Sink{cfg: sinklog.Config{MaxBody: 1 << 20}, log: NewLog(fs.log, 0), names: newNameTable(), certs: m}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	fs.addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s.serveConn(c, sinklog.Event{Kind: sinklog.KindTCP, Name: name, DstIP: "198.18.0.7", Port: port})
			}()
		}
	}()
	return fs
}

// payloads lists the payload events as "op user secret data" lines.
func (fs *fakeServer) payloads(t *testing.T) []string {
	var out []string
	for _, e := range fs.log.events(t) {
		if e.Kind == sinklog.KindPayload {
			out = append(out, strings.TrimSpace(e.Service+" "+e.Op+" user="+e.User+" secret="+string(e.Secret)+" "+string(e.Data)))
		}
	}
	return out
}

func hasPayload(got []string, want string) bool {
	for _, g := range got {
		if strings.Contains(g, want) {
			return true
		}
	}
	return false
}
