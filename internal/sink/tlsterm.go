package sink

import (
	"crypto/tls"
	"net"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// terminateTLS completes a TLS handshake as whatever host the client
// asks for, with a certificate from the run's CA, and notes the SNI, the
// offered protocols and the outcome on ev. PostgreSQL's direct TLS asks
// for ALPN "postgresql".
func (s *Sink) terminateTLS(c net.Conn, ev *sinklog.Event) (*tls.Conn, error) {
	var hello *tls.ClientHelloInfo
	tc := tls.Server(c, &tls.Config{
		MinVersion: tls.VersionTLS10,
		NextProtos: []string{"http/1.1", "postgresql"},
		GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
			hello = h
			name := h.ServerName
			if name == "" {
				name = ev.Name
			}
			if name == "" {
				name = ev.DstIP
			}
			return s.certs.forName(name)
		},
	})
	c.SetDeadline(time.Now().Add(30 * time.Second))
	err := tc.Handshake()
	if hello != nil {
		ev.SNI = textsafe.Valid(hello.ServerName, 253)
		for _, p := range hello.SupportedProtos {
			if len(ev.ALPN) < 8 {
				ev.ALPN = append(ev.ALPN, textsafe.Valid(p, 32))
			}
		}
	}
	if err != nil {
		ev.TLS = "failed: " + textsafe.Valid(err.Error(), 200)
		return nil, err
	}
	ev.TLS = "intercepted"
	return tc, nil
}
