package report

import (
	"bytes"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

func TestClockLine(t *testing.T) {
	for _, tc := range []struct {
		st   *m.ServerTime
		want string
	}{
		{nil, ""},
		{&m.ServerTime{Rate: 200, CoveredMS: []m.PhaseTiming{{Phase: m.PhaseStartup, MS: 180_000}, {Phase: "calls", MS: 999_000}, {Phase: m.PhaseIdle, MS: 730_400}}},
			"server clock covered 15m10s of startup+idle (200x real time)"},
		{&m.ServerTime{Rate: 1, CoveredMS: []m.PhaseTiming{{Phase: m.PhaseStartup, MS: 900}, {Phase: m.PhaseIdle, MS: 2100}}},
			"server clock covered 3s of startup+idle (real time: no clock shim)"},
	} {
		if got := clockLine(tc.st); got != tc.want {
			t.Errorf("clockLine = %q, want %q", got, tc.want)
		}
	}
	var buf bytes.Buffer
	man := &m.Manifest{Run: m.Run{ServerTime: &m.ServerTime{Rate: 200, CoveredMS: []m.PhaseTiming{{Phase: m.PhaseIdle, MS: 910_000}}}}}
	Summary(&buf, man, nil, policy.Policy{FailOn: policy.High})
	if !strings.Contains(buf.String(), "\n  clock:   server clock covered 15m10s of startup+idle (200x real time)\n") {
		t.Errorf("summary lacks the clock line:\n%s", buf.String())
	}
}
