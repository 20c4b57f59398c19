package export

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestValidHost(t *testing.T) {
	for h, ok := range map[string]bool{
		"api.example.com": true, "API.Example.COM": true, "a-b.c.example": true, "8.8.4.4": true,
		"*.example.com": false, "example": false, "localhost": false, "db.internal": false, "printer.local": false,
		"127.0.0.1": false, "10.1.2.3": false, "169.254.169.254": false, "192.168.0.1": false, "198.18.0.5": false,
		"::1": false, "fe80::1": false, "fd00::1": false, "100.64.0.1": false, "0.0.0.0": false,
		"a..b": false, "-x.example": false, "x_y.example": false, "x.example\n": false, "\x1b[2J.example": false,
		"1.2.3": false, "": false,
	} {
		if got := ValidHost(h) == nil; got != ok {
			t.Errorf("ValidHost(%q) = %v, want %v", h, got, ok)
		}
	}
}

// TestEndpointsSkipInvalid: names from the server's own DNS queries never
// become allow-list entries unless they are plain public host names.
func TestEndpointsSkipInvalid(t *testing.T) {
	man := &m.Manifest{Phases: []m.Phase{{Name: m.PhaseStartup, Network: []m.Connection{
		{Category: "egress", Proto: "tcp", Port: 443, Name: "api.service.example"},
		{Category: "egress", Proto: "tcp", Port: 443, Name: "*.evil.example"},
		{Category: "egress", Proto: "tcp", Port: 80, Address: "169.254.169.254"},
		{Category: "egress", Proto: "tcp", Port: 443, Name: "internal-db"},
	}}}}
	got := Endpoints(man)
	if len(got) != 1 || got[0].Host != "api.service.example" {
		t.Errorf("endpoints: %+v", got)
	}
}
