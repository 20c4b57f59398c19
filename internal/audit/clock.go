package audit

import (
	"strconv"
	"strings"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// The clock shim. A payload that waits (ten seconds after start, a date, N
// minutes of idle) would need an audit as long as the wait; instead the
// sandbox runs the server's clocks and waits faster than real time
// (libfaketime: wall and monotonic clocks, sleep, poll and epoll timeouts),
// so setTimeout(fn, 12000) fires after 60 ms at the default rate. The
// tracer, the sink and the MCP client keep real time.
const (
	// DefaultClockRate is server seconds per real second. Higher rates
	// cover more time but shrink a server's own timeouts as much (a 10 s
	// HTTP timeout becomes 50 ms, still far above the sink's answer time).
	DefaultClockRate = 200
	// DefaultServerTimeMin is how much server time startup and idle
	// together cover at least: idle is extended until they do.
	DefaultServerTimeMin = 15 * time.Minute
	// DefaultDwell is the least real idle time where waiting is cheap
	// (batch and the scheduled Action): with the default rate, 100 minutes
	// of server time.
	DefaultDwell = 30 * time.Second
)

// idleOptions raises the idle phase's floor to the dwell and to what the
// server's clock still needs to cover ServerTimeMin after a startup phase
// that lasted startup.
func idleOptions(o Options, startup time.Duration) Options {
	floor := max(o.IdleMin, o.Dwell)
	if o.ClockRate > 1 && o.ServerTimeMin > 0 {
		floor = max(floor, o.ServerTimeMin/time.Duration(o.ClockRate)-startup)
	}
	o.IdleMin = floor
	o.IdleMax = max(o.IdleMax, floor)
	return o
}

// appliedRate is the rate the entrypoint applied ("clock RATE" in its
// status); 1 when the shim was off or unavailable.
func appliedRate(status []string) int {
	for _, st := range status {
		if v, ok := strings.CutPrefix(st, "clock "); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				return n
			}
		}
	}
	return 1
}

// clockNotes explains a shim that was asked for and not applied.
func clockNotes(status []string) []string {
	for _, st := range status {
		if st == "clock-unavailable" {
			return []string{"the clock shim is not in the sandbox image (libfaketime): the server ran in real time"}
		}
	}
	return nil
}

// serverTime is what the server's clock covered: each phase's real time
// times the rate, from the real start (the shim adds no offset).
func serverTime(rate int, started time.Time, timing []m.PhaseTiming) *m.ServerTime {
	st := &m.ServerTime{Rate: rate, Start: started.UTC().Format(time.RFC3339)}
	var total int64
	for _, pt := range timing {
		ms := pt.MS * int64(rate)
		st.CoveredMS = append(st.CoveredMS, m.PhaseTiming{Phase: pt.Phase, MS: ms})
		total += ms
	}
	st.End = started.Add(time.Duration(total) * time.Millisecond).UTC().Format(time.RFC3339)
	return st
}
