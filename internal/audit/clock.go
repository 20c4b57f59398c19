package audit

import (
	"context"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// The clock shim. A payload that waits (ten seconds after start, a date, N
// minutes of idle) would need an audit as long as the wait; instead the
// sandbox runs the server's clocks and waits faster than real time in the
// idle phase (libfaketime: wall and monotonic clocks, sleep, poll and epoll
// timeouts), so setTimeout(fn, 12000) fires within the run. While the
// client talks to the server (startup and the calls) its clock runs in real
// time, so its own network timeouts hold. At the switch the server's clock
// jumps forward (libfaketime scales the time since the server started:
// that time times rate-1), then runs at the rate; a wake-up ping makes a
// server blocked in a long wait read its clocks again. The tracer, the sink
// and the MCP client keep real time.
const (
	// DefaultClockRate is server seconds per real second in the idle
	// phase. Higher rates cover more time but shrink the server's own
	// timeouts there as much (a 10 s HTTP timeout becomes 50 ms).
	DefaultClockRate = 200
	// DefaultServerTimeMin is how much server time startup, calls and
	// idle together cover at least: idle is extended until they do.
	DefaultServerTimeMin = 15 * time.Minute
	// ServerSilenceMin is how much server time the fast idle phase covers
	// after the wake-up ping, the client's last message: a payload that
	// waits that long for the client to be silent fires.
	ServerSilenceMin = 10 * time.Minute
	// DefaultDwell is the least real idle time where waiting is cheap
	// (batch and the scheduled Action): with the default rate, 100 minutes
	// of server time.
	DefaultDwell = 30 * time.Second
	// clockWake: the wake-up ping, just after libfaketime reads the rate.
	clockWake = sandbox.ClockNoticeMax + 200*time.Millisecond
)

// idleOptions raises the idle floor to the dwell and, with the shim, to
// when the server's clock covered ServerTimeMin since it started (lead:
// real time before idle; from the switch on (lead+idle)*rate) and
// ServerSilenceMin since the wake-up ping.
func idleOptions(o Options, lead time.Duration) Options {
	floor := max(o.Timing.IdleMin, o.Timing.Dwell)
	if rate := time.Duration(o.Timing.ClockRate); rate > 1 && o.Timing.ServerTimeMin > 0 {
		floor = max(floor, o.Timing.ServerTimeMin/rate-lead, clockWake+ServerSilenceMin/rate)
	}
	o.Timing.IdleMin = floor
	o.Timing.IdleMax = max(o.Timing.IdleMax, floor)
	return o
}

func clockNotes(st sandbox.Status) []string {
	if st.ClockUnavailable {
		return []string{"the clock shim is not in the sandbox image (libfaketime): the server ran in real time"}
	}
	return nil
}

// serverTime is what the server's clock covered, from the real start (the
// shim adds no offset): startup and calls in real time; idle at the rate,
// plus the jump at the switch, (lead)*(rate-1), where lead is the real time
// the idled server had run when idle began.
func serverTime(rate int, started time.Time, timing []m.PhaseTiming, lead time.Duration) *m.ServerTime {
	st := &m.ServerTime{Rate: rate, Start: started.UTC().Format(time.RFC3339)}
	var total int64
	for _, pt := range timing {
		ms := pt.MS
		if pt.Phase == m.PhaseIdle {
			ms = pt.MS*int64(rate) + lead.Milliseconds()*int64(rate-1)
		}
		st.CoveredMS = append(st.CoveredMS, m.PhaseTiming{Phase: pt.Phase, MS: ms})
		total += ms
	}
	st.End = started.Add(time.Duration(total) * time.Millisecond).UTC().Format(time.RFC3339)
	return st
}

// fastClock switches the server's clock to the run's rate at the start of
// idle (a sandbox without the shim ignores it), waits until libfaketime
// has read it and pings the server (every server answers), so a server in
// a long wait reads its clocks again and its due timers fire. A server
// that does not answer within clockWake is not waited for.
func fastClock(ctx context.Context, rate int, seg *segment) {
	if rate <= 1 {
		return
	}
	if err := seg.run.FastClock(ctx); err != nil {
		return
	}
	t := time.NewTimer(clockWake)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-seg.run.Done():
		return
	case <-t.C:
	}
	pctx, cancel := context.WithTimeout(ctx, clockWake)
	defer cancel()
	wake := "ping"
	if seg.client.Era() == mcpclient.EraModern {
		wake = "server/discover" // the 2026-07-28 revision's request every server answers
	}
	_, _ = seg.client.Call(pctx, wake, nil)
}

// idleLead is the real time the idled server (the last segment's) had run
// when idle began: from the entrypoint's "started TIME" note (the server's
// start, which libfaketime scales from), else from the container's start.
func idleLead(seg *segment, idleStart time.Time) time.Duration {
	if idleStart.IsZero() {
		return 0
	}
	started := seg.run.Started
	if t := seg.art.Status.Started; t.After(started) && t.Before(idleStart) {
		started = t
	}
	return idleStart.Sub(started)
}
