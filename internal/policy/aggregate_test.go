package policy

import (
	"fmt"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestOneFindingPerThing: a host used by 41 calls is one finding listing
// the calls, not 41; findings outside calls are kept per phase.
func TestOneFindingPerThing(t *testing.T) {
	man := &m.Manifest{Outcome: m.Outcome{Status: m.StatusOK}}
	for i := range 41 {
		man.Phases = append(man.Phases, m.Phase{Name: fmt.Sprintf("call:t%02d", i),
			DNS: []m.DNSQuery{{Name: "app.asana.example", Type: "A"}}})
	}
	man.Phases = append(man.Phases, m.Phase{Name: m.PhaseStartup, DNS: []m.DNSQuery{{Name: "app.asana.example", Type: "A"}}})
	fs := Evaluate(man, Policy{})
	var calls, startup int
	for _, f := range fs {
		switch f.Phase {
		case PhaseCalls:
			calls++
			if len(f.Calls) != 41 || f.Where() != "41 calls: call:t00, call:t01, call:t02, call:t03, call:t04, … (+36 more)" {
				t.Errorf("aggregated: %d calls, where %q", len(f.Calls), f.Where())
			}
		case m.PhaseStartup:
			startup++
		default:
			t.Errorf("unaggregated finding: %+v", f)
		}
	}
	if calls != 1 || startup != 1 {
		t.Errorf("%d aggregated and %d startup findings, want 1 and 1: %v", calls, startup, fs)
	}
}
