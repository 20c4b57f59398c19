// Package bench measures mcp-audit's costs on the real engine and prints
// ratios measured in one run, so numbers are compared under the same load.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// Options select what to measure.
type Options struct {
	Server string // npm spec of the server to measure
	Runs   int
	// Exercise is a server whose full exercise is timed ("" skips it).
	Exercise string
}

// Run executes the benchmarks and writes a report to w.
func Run(ctx context.Context, w io.Writer, d audit.Deps, o Options) error {
	if o.Runs <= 0 {
		o.Runs = 7
	}
	// Pin the version once so every run audits the same bytes from cache.
	spec := o.Server
	p, err := audit.Prepare(ctx, d, audit.Options{Target: spec})
	if err != nil {
		return err
	}
	pinned := "npm:" + p.Manifest.Target.Name + "@" + p.Manifest.Target.Version
	p.Close()
	fmt.Fprintf(w, "mcp-audit benchmark, %s, %d runs per measurement\n\n", pinned, o.Runs)

	// 1. Tracing overhead on time-to-initialize, alternating traced and
	// untraced runs in the same sandbox configuration.
	var traced, untraced []time.Duration
	for i := 0; i < o.Runs; i++ {
		for _, tr := range []bool{true, false} {
			dur, err := initLatency(ctx, d, pinned, tr)
			if err != nil {
				return err
			}
			if tr {
				traced = append(traced, dur)
			} else {
				untraced = append(untraced, dur)
			}
		}
	}
	mt, mu := median(traced), median(untraced)
	fmt.Fprintf(w, "time to answer initialize (server process start -> response), median:\n")
	fmt.Fprintf(w, "  untraced  %6.0f ms   %v\n", ms(mu), fmtAll(untraced))
	fmt.Fprintf(w, "  traced    %6.0f ms   %v\n", ms(mt), fmtAll(traced))
	fmt.Fprintf(w, "  ratio traced/untraced: %.2fx (goal <= 1.30x)\n\n", float64(mt)/float64(mu))

	// 2. Whole-audit overhead outside the idle window, image built and
	// package cached, with and without the network sink (alternating).
	outside := map[string][]time.Duration{}
	for i := 0; i < max(3, o.Runs/2); i++ {
		for _, mode := range []string{sandbox.NetNone, sandbox.NetSinkhole} {
			start := time.Now()
			res, err := audit.Run(ctx, d, audit.Options{Target: pinned, Network: mode, Calls: audit.CallsNone})
			if err != nil {
				return err
			}
			wall := time.Since(start)
			idle := time.Duration(0)
			for _, pt := range res.Manifest.Run.PhaseTimingMS {
				if pt.Phase == "idle" {
					idle = time.Duration(pt.MS) * time.Millisecond
				}
			}
			outside[mode] = append(outside[mode], wall-idle)
		}
	}
	none, sinkhole := median(outside[sandbox.NetNone]), median(outside[sandbox.NetSinkhole])
	fmt.Fprintf(w, "audit wall time minus idle window, startup only (image built, package cached), median:\n")
	fmt.Fprintf(w, "  sinkhole (default) %.2f s   %v (goal <= 3 s)\n", sinkhole.Seconds(), fmtAll(outside[sandbox.NetSinkhole]))
	fmt.Fprintf(w, "  --network none     %.2f s   %v\n", none.Seconds(), fmtAll(outside[sandbox.NetNone]))
	fmt.Fprintf(w, "  sink's added cost: %+.2f s per audit (goal < 0.5 s)\n\n", (sinkhole - none).Seconds())

	// 3. Exercising a server with many tools end to end.
	if o.Exercise != "" {
		p, err := audit.Prepare(ctx, d, audit.Options{Target: o.Exercise, Network: sandbox.NetNone})
		if err != nil {
			return err
		}
		ex := "npm:" + p.Manifest.Target.Name + "@" + p.Manifest.Target.Version
		p.Close()
		start := time.Now()
		res, err := audit.Run(ctx, d, audit.Options{Target: ex, CallTimeout: 5 * time.Second})
		if err != nil {
			return err
		}
		outcomes := map[string]int{}
		for _, c := range res.Manifest.Calls {
			outcomes[c.Outcome]++
		}
		var calls time.Duration
		for _, pt := range res.Manifest.Run.PhaseTimingMS {
			if pt.Phase == "calls" {
				calls = time.Duration(pt.MS) * time.Millisecond
			}
		}
		fmt.Fprintf(w, "exercising %s end to end (every tool, prompt and resource, sinkhole):\n", ex)
		fmt.Fprintf(w, "  %.1f s wall, of which %.1f s calls; %d calls %v\n", time.Since(start).Seconds(), calls.Seconds(),
			len(res.Manifest.Calls), outcomes)
	}
	return nil
}

// initLatency starts the server and measures from the moment the
// entrypoint launched it (CLOCK_REALTIME, shared with the host) to the
// initialize response.
func initLatency(ctx context.Context, d audit.Deps, target string, traced bool) (time.Duration, error) {
	// No network sink here: this measures the tracer alone.
	p, err := audit.Prepare(ctx, d, audit.Options{Target: target, Network: sandbox.NetNone})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	spec := p.Spec
	spec.NoTrace = !traced
	sb := &sandbox.Sandbox{Engine: d.Engine}
	run, err := sb.Start(ctx, spec)
	if err != nil {
		return 0, err
	}
	defer run.Remove()
	c := mcpclient.New(run.Stdout, run, mcpclient.Options{})
	defer c.Close()
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ictx); err != nil {
		return 0, fmt.Errorf("initialize: %w (stderr %q)", err, run.Stderr())
	}
	answered := time.Now()
	if err := run.Stop(ctx, 2*time.Second); err != nil {
		return 0, err
	}
	art, err := run.Collect(ctx, 64<<20)
	if err != nil {
		return 0, err
	}
	os.Remove(art.TraceFile)
	for _, s := range art.Status {
		if f := strings.Fields(s); len(f) == 2 && f[0] == "started" {
			sec, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				started := time.Unix(0, int64(sec*1e9))
				return answered.Sub(started), nil
			}
		}
	}
	return 0, fmt.Errorf("no start time from the sandbox")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fmtAll(d []time.Duration) string {
	var parts []string
	for _, x := range d {
		if x >= time.Second {
			parts = append(parts, fmt.Sprintf("%.2fs", x.Seconds()))
		} else {
			parts = append(parts, fmt.Sprintf("%.0fms", ms(x)))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
