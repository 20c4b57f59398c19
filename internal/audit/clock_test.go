package audit

import (
	"testing"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestServerTimeCovered: startup and calls run in real time; idle at the
// rate plus the jump at the switch (lead*(rate-1)), so startup..idle
// cover (lead+idle)*rate in all, the server's clock at the end.
func TestServerTimeCovered(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	timing := []m.PhaseTiming{{Phase: m.PhaseStartup, MS: 400}, {Phase: "calls", MS: 600}, {Phase: m.PhaseIdle, MS: 5000}}
	st := serverTime(200, started, timing, time.Second)
	want := []m.PhaseTiming{{Phase: m.PhaseStartup, MS: 400}, {Phase: "calls", MS: 600}, {Phase: m.PhaseIdle, MS: 5000*200 + 1000*199}}
	if len(st.CoveredMS) != len(want) {
		t.Fatalf("covered %+v", st.CoveredMS)
	}
	for i := range want {
		if st.CoveredMS[i] != want[i] {
			t.Errorf("covered[%d] = %+v, want %+v", i, st.CoveredMS[i], want[i])
		}
	}
	if total := st.Covered(m.PhaseStartup, "calls", m.PhaseIdle); total != 6*200*time.Second {
		t.Errorf("total covered %v, want %v ((lead+idle)*rate)", total, 6*200*time.Second)
	}
	if st.Rate != 200 || st.Start != "2026-01-02T03:04:05Z" || st.End != "2026-01-02T03:24:05Z" {
		t.Errorf("server_time %+v", st)
	}
	// Without the shim every phase is real time.
	off := serverTime(1, started, timing, time.Second)
	if got := off.Covered(m.PhaseStartup, "calls", m.PhaseIdle); got != 6*time.Second || off.End != "2026-01-02T03:04:11Z" {
		t.Errorf("rate 1: covered %v, end %s", got, off.End)
	}
}

// TestIdleFloor: idle lasts until startup..idle cover ServerTimeMin,
// counting the jump ((lead+idle)*rate), and until the stretch after the
// wake-up ping covers ServerSilenceMin; without the shim only IdleMin and
// the dwell count.
func TestIdleFloor(t *testing.T) {
	o := Options{Timing: TimingOptions{ClockRate: 200, ServerTimeMin: 15 * time.Minute, IdleMin: time.Second, IdleMax: 3 * time.Second}}
	silence := clockWake + ServerSilenceMin/200 // 1.2 s + 3 s
	for _, c := range []struct {
		name  string
		o     Options
		lead  time.Duration
		floor time.Duration
	}{
		{"short lead: ServerTimeMin", func() Options { o := o; o.Timing.ServerTimeMin = 30 * time.Minute; return o }(), 100 * time.Millisecond, 30*time.Minute/200 - 100*time.Millisecond},
		{"short lead: ServerTimeMin at the defaults", o, 100 * time.Millisecond, 15*time.Minute/200 - 100*time.Millisecond},
		{"defaults: the silence after the ping", o, 500 * time.Millisecond, silence},
		{"long lead: the silence after the ping", o, 2 * time.Second, silence},
		{"lead beyond ServerTimeMin", o, time.Minute, silence},
		{"dwell", func() Options { o := o; o.Timing.Dwell = 30 * time.Second; return o }(), time.Second, 30 * time.Second},
		{"no shim", func() Options { o := o; o.Timing.ClockRate = 1; return o }(), time.Second, time.Second},
	} {
		got := idleOptions(c.o, c.lead)
		if got.Timing.IdleMin != c.floor || got.Timing.IdleMax != max(c.floor, c.o.Timing.IdleMax) {
			t.Errorf("%s: idle min %v max %v, want floor %v", c.name, got.Timing.IdleMin, got.Timing.IdleMax, c.floor)
		}
		if c.o.Timing.ClockRate > 1 {
			covered := (c.lead + got.Timing.IdleMin) * time.Duration(c.o.Timing.ClockRate)
			if covered < c.o.Timing.ServerTimeMin {
				t.Errorf("%s: covered %v at the floor", c.name, covered)
			}
		}
	}
}

// TestAppliedRate: the rate counts only once the entrypoint switched the
// clock ("clock-fast"); before, the server ran in real time.
func TestAppliedRate(t *testing.T) {
	for _, c := range []struct {
		status []string
		want   int
	}{
		{[]string{"clock 200", "started 1.0", "clock-fast 2.0", "exit 0 3.0"}, 200},
		{[]string{"clock 200", "started 1.0", "exit 0 3.0"}, 1},
		{[]string{"clock-unavailable", "started 1.0"}, 1},
		{[]string{"started 1.0", "clock-fast 2.0"}, 1},
		{nil, 1},
	} {
		if got := sandbox.ParseStatus(c.status).ClockApplied(); got != c.want {
			t.Errorf("%q: rate %d, want %d", c.status, got, c.want)
		}
	}
}

// TestIdleLead: the lead is counted from the entrypoint's "started" note
// when it lies between the container's start and idle, else from the
// container's start; zero without an idle phase.
func TestIdleLead(t *testing.T) {
	start := time.Unix(1000, 0)
	idle := start.Add(3 * time.Second)
	seg := func(status ...string) *segment {
		return &segment{run: &sandbox.Run{Started: start}, art: &sandbox.Artifacts{Status: sandbox.ParseStatus(status)}}
	}
	for _, c := range []struct {
		seg  *segment
		idle time.Time
		want time.Duration
	}{
		{seg("clock 200", "started 1000.5"), idle, 2500 * time.Millisecond},
		{seg("started 999.0"), idle, 3 * time.Second},
		{seg("started 1004.0"), idle, 3 * time.Second},
		{seg("started x"), idle, 3 * time.Second},
		{seg(), idle, 3 * time.Second},
		{seg("started 1000.5"), time.Time{}, 0},
	} {
		if got := idleLead(c.seg, c.idle); got != c.want {
			t.Errorf("%+v: lead %v, want %v", c.seg.art.Status, got, c.want)
		}
	}
}
