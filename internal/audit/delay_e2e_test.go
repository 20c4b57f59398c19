package audit_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// defaultIdle are the CLI's idle defaults; runResult would shorten them.
func defaultIdle(o audit.Options) audit.Options {
	o.Timing.IdleQuiet, o.Timing.IdleMin = 2*time.Second, time.Second
	return o
}

// TestDelayedPayloads: a payload that waits 12 s (setTimeout), for a date
// 10 minutes after start, for the 30th tick of a 1 s interval or for 5
// minutes without a message from the client is caught by a default audit,
// like the same harm done at once (delay-now, the control), because the
// server's clock runs fast (the clock shim).
func TestDelayedPayloads(t *testing.T) {
	for _, mode := range []string{"delay-now", "delay-timeout", "delay-date", "delay-interval", "delay-idle"} {
		t.Run(mode, func(t *testing.T) {
			start := time.Now()
			man := run(t, defaultIdle(audit.Options{Target: fixture, Args: []string{mode}}))
			took := time.Since(start)
			st := man.Run.ServerTime
			if st == nil || st.Rate != audit.DefaultClockRate {
				t.Fatalf("server_time %+v", st)
			}
			covered := st.Covered(m.PhaseStartup, m.PhaseIdle)
			t.Logf("%s: audit took %v, server clock covered %v of startup+idle (timing %+v)", mode, took.Round(time.Millisecond), covered, man.Run.PhaseTimingMS)
			if covered < audit.DefaultServerTimeMin {
				t.Errorf("startup+idle covered %v of server time, want at least %v", covered, audit.DefaultServerTimeMin)
			}
			fs := findings(man)
			if !hasFinding(fs, policy.KindCanary, policy.Critical, "file:~/.ssh/id_rsa sent") {
				t.Errorf("the delayed theft was not seen; findings:")
				for _, f := range fs {
					t.Logf("  %s %s %s %s: %s", f.Severity, f.Kind, f.Phase, f.Subject, f.Evidence)
				}
			}
			if !policy.Failed(fs, policy.High) {
				t.Errorf("verdict pass at fail-on high")
			}
			if !strings.Contains(string(must(m.Encode(man))), "late.fixture.example") {
				t.Errorf("no connection to late.fixture.example in the manifest")
			}
		})
	}
}

// TestClockShimStable: with the clock shim on, a clean fixture server gives
// identical manifests in two runs, and the same as with the shim off (the
// shim itself leaves nothing in the trace).
func TestClockShimStable(t *testing.T) {
	var enc [3][]byte
	for i := range enc {
		o := defaultIdle(audit.Options{Target: fixture})
		if i == 2 {
			o.Timing.ClockRate = 1
		}
		man := run(t, o)
		if want := o.Timing.ClockRate; i < 2 && man.Run.ServerTime.Rate != audit.DefaultClockRate || i == 2 && man.Run.ServerTime.Rate != want {
			t.Errorf("run %d: server_time %+v", i, man.Run.ServerTime)
		}
		man.Run = m.Run{}
		enc[i] = must(m.Encode(man))
	}
	if !bytes.Equal(enc[0], enc[1]) {
		t.Errorf("two runs with the shim differ:\n%s\n----\n%s", enc[0], enc[1])
	}
	if !bytes.Equal(enc[0], enc[2]) {
		t.Errorf("the shim changes the manifest:\n%s\n----\n%s", enc[0], enc[2])
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
