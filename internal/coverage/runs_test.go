package coverage

import (
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestMissingComparisonsAreIncomplete: a witness run or a comparison of
// secrets that failed leaves its question unanswered, and the verdict
// says so; the same runs that ran say nothing.
func TestMissingComparisonsAreIncomplete(t *testing.T) {
	base := func() *m.Manifest {
		return &m.Manifest{Outcome: m.Outcome{Status: m.StatusOK}, Server: m.ServerInfo{ProtocolVersion: "2025-06-18"}}
	}
	ok := base()
	ok.Run.WitnessRun, ok.Run.Differential = "ran", "compared"
	if r := Incomplete(ok); len(r) != 0 {
		t.Errorf("ran: %q", r)
	}
	w := base()
	w.Run.WitnessRun = "failed: engine gone"
	d := base()
	d.Run.Differential = "failed: the secrets run timed out"
	for _, tc := range []struct {
		man  *m.Manifest
		want string
	}{{w, "the witness run"}, {d, "output that follows the planted values was not compared"}} {
		r := Incomplete(tc.man)
		if len(r) != 1 || !strings.Contains(r[0], tc.want) {
			t.Errorf("reasons %q, want %q", r, tc.want)
		}
	}
}
