package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// ClockCost is clockCost on its own (mcp-audit-bench -only clock).
func ClockCost(ctx context.Context, w io.Writer, d audit.Deps, fixture string, runs int) error {
	return clockCost(ctx, w, d, fixture, max(3, runs/2))
}

// clockCost measures the clock shim on a clean server (the fixture with no
// bad mode, sinkhole, every tool called, default idle settings): audits
// with the shim and without it (--clock-rate 1), alternating, and the
// server time the shim's runs covered.
func clockCost(ctx context.Context, w io.Writer, d audit.Deps, fixture string, runs int) error {
	walls := map[int][]time.Duration{}
	startups := map[int][]time.Duration{}
	var covered []time.Duration
	for range runs {
		for _, rate := range []int{1, audit.DefaultClockRate} {
			start := time.Now()
			res, err := audit.Run(ctx, d, audit.Options{Target: fixture, Timing: audit.TimingOptions{ClockRate: rate}})
			if err != nil {
				return err
			}
			walls[rate] = append(walls[rate], time.Since(start))
			run := res.Manifest.Run
			for _, pt := range run.PhaseTimingMS {
				if pt.Phase == m.PhaseStartup {
					startups[rate] = append(startups[rate], time.Duration(pt.MS)*time.Millisecond)
				}
			}
			if rate > 1 && run.ServerTime != nil {
				covered = append(covered, run.ServerTime.Covered(m.PhaseStartup, m.PhaseIdle))
			}
		}
	}
	off, on := median(walls[1]), median(walls[audit.DefaultClockRate])
	fmt.Fprintf(w, "clock shim on a clean server (fixture, sinkhole, every tool called, default idle), median:\n")
	fmt.Fprintf(w, "  --clock-rate 1     %.2f s wall, startup %4.0f ms   %v\n", off.Seconds(), ms(median(startups[1])), fmtAll(walls[1]))
	fmt.Fprintf(w, "  --clock-rate %d   %.2f s wall, startup %4.0f ms   %v\n", audit.DefaultClockRate, on.Seconds(),
		ms(median(startups[audit.DefaultClockRate])), fmtAll(walls[audit.DefaultClockRate]))
	if len(covered) > 0 {
		fmt.Fprintf(w, "  server clock covered %v of startup+idle (goal >= %v)\n", median(covered).Round(time.Second), audit.DefaultServerTimeMin)
	}
	fmt.Fprintf(w, "  shim's added cost: %+.2f s per audit (goal < 15 s)\n", (on - off).Seconds())
	return nil
}
