package diff

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestEraDropped: a release that stops answering the 2025 handshake its
// baseline answered is medium; a new patch level of the same era, or a
// release that adds an era, is nothing.
func TestEraDropped(t *testing.T) {
	mk := func(pv string, eras ...string) *m.Manifest {
		return &m.Manifest{Server: m.ServerInfo{ProtocolVersion: pv, Eras: eras}}
	}
	for _, tc := range []struct {
		name     string
		old, new *m.Manifest
		want     int
	}{
		{"modern only now", mk("2025-06-18"), mk("2026-07-28", "2026-07-28"), 1},
		{"dual to modern", mk("2026-07-28", "2025-06-18", "2026-07-28"), mk("2026-07-28", "2026-07-28"), 1},
		{"same era", mk("2025-03-26"), mk("2025-06-18"), 0},
		{"adds modern", mk("2025-06-18"), mk("2026-07-28", "2025-06-18", "2026-07-28"), 0},
		{"no opening", mk("2025-06-18"), mk(""), 0},
	} {
		r := &Result{}
		r.eraFindings(tc.old, tc.new)
		if len(r.Findings) != tc.want || tc.want == 1 && (r.Findings[0].Severity != policy.Medium || r.Findings[0].Kind != policy.KindEra) {
			t.Errorf("%s: %+v", tc.name, r.Findings)
		}
	}
}
