package export

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

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
