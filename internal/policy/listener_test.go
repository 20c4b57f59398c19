package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestExpectedListener(t *testing.T) {
	httpMan := &m.Manifest{Target: m.Target{Transport: m.TransportHTTP, ListenPort: 8080}}
	stdio := &m.Manifest{Target: m.Target{ListenPort: 8080}}
	for _, tc := range []struct {
		name string
		man  *m.Manifest
		c    m.Connection
		want bool
	}{
		{"its own port", httpMan, m.Connection{Proto: "tcp", Address: "127.0.0.1", Port: 8080}, true},
		{"its own port, every interface", httpMan, m.Connection{Proto: "tcp", Address: "0.0.0.0", Port: 8080}, true},
		{"another port", httpMan, m.Connection{Proto: "tcp", Address: "127.0.0.1", Port: 4444}, false},
		{"udp on the port", httpMan, m.Connection{Proto: "udp", Address: "127.0.0.1", Port: 8080}, false},
		{"no port known", httpMan, m.Connection{Proto: "tcp", Address: "127.0.0.1"}, false},
		{"stdio server", stdio, m.Connection{Proto: "tcp", Address: "127.0.0.1", Port: 8080}, false},
	} {
		if got := expectedListener(tc.man, tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
