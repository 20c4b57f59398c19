// Package bench measures mcp-audit's costs on the real engine and prints
// ratios measured in one run, so numbers are compared under the same load.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// Options select what to measure.
type Options struct {
	Server string // npm spec of the server to measure
	Runs   int
	// Exercise is a server whose full exercise is timed ("" skips it).
	Exercise string
	// Batch is the size of the batch timed with --jobs 1 and --jobs N
	// (0 skips it); its servers are variants of the fixture in Fixture.
	Batch   int
	Fixture string
	// Self is this benchmark's executable, re-run with AnalyzeFlag to
	// measure the peak memory of analyzing a hostile trace ("" skips it).
	Self string
}

// Run executes the benchmarks and writes a report to w.
func Run(ctx context.Context, w io.Writer, d audit.Deps, o Options) error {
	if o.Runs <= 0 {
		o.Runs = 7
	}
	pinned, err := Pin(ctx, d, o.Server)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "mcp-audit benchmark, %s, %d runs per measurement\n\n", pinned, o.Runs)

	if err := TracingOverhead(ctx, w, d, pinned, o.Runs); err != nil {
		return err
	}
	if err := SinkCost(ctx, w, d, pinned, o.Runs); err != nil {
		return err
	}
	if err := StartCost(ctx, w, d, pinned, o.Runs); err != nil {
		return err
	}
	if err := WitnessCost(ctx, w, d, pinned, o.Runs); err != nil {
		return err
	}

	// 3. Exercising a server with many tools end to end.
	if o.Exercise != "" {
		if err := ExerciseCost(ctx, w, d, o.Exercise); err != nil {
			return err
		}
	}
	return rest(ctx, w, d, o)
}

// rest runs the measurements that need the fixture or this executable:
// the clock shim's cost, a hostile trace's analysis, batch scaling.
func rest(ctx context.Context, w io.Writer, d audit.Deps, o Options) error {
	if o.Fixture != "" {
		if err := clockCost(ctx, w, d, o.Fixture, max(3, o.Runs/2)); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := VariantsCost(ctx, w, d, o.Fixture, max(3, o.Runs/2)); err != nil {
			return err
		}
	}
	if o.Self != "" {
		if err := AnalysisCost(ctx, w, o.Self); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if o.Batch > 0 {
		return BatchScaling(ctx, w, d, o)
	}
	return nil
}

// Pin resolves server once, so every run audits the same bytes from
// cache.
func Pin(ctx context.Context, d audit.Deps, server string) (string, error) {
	p, err := audit.Prepare(ctx, d, audit.Options{Target: server})
	if err != nil {
		return "", err
	}
	defer p.Close()
	t := p.Manifest.Target
	return target.EcosystemNamed(t.Ecosystem).Pin(t.Name, t.Version), nil
}

// TracingOverhead measures the tracer's cost on time-to-initialize,
// alternating traced and untraced runs in the same sandbox configuration.
func TracingOverhead(ctx context.Context, w io.Writer, d audit.Deps, pinned string, runs int) error {
	var traced, untraced []time.Duration
	for i := 0; i < runs; i++ {
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
	fmt.Fprintf(w, "  ratio traced/untraced: %.2fx (goal <= 1.30x)\n", float64(mt)/float64(mu))
	// Each pair ran back to back, so its ratio shares the machine's load
	// of the moment: their median is steadier than the medians' ratio.
	ratios := make([]time.Duration, len(traced))
	for i := range traced {
		ratios[i] = time.Duration(float64(time.Millisecond) * float64(traced[i]) / float64(max(untraced[i], 1)))
	}
	fmt.Fprintf(w, "  median of %d pair ratios: %.2fx\n\n", len(ratios), float64(median(ratios))/float64(time.Millisecond))
	return nil
}

// SinkCost measures whole-audit overhead outside the idle window, image
// built and package cached, with and without the network sink
// (alternating).
func SinkCost(ctx context.Context, w io.Writer, d audit.Deps, pinned string, runs int) error {
	outside := map[string][]time.Duration{}
	for i := 0; i < max(3, runs/2); i++ {
		for _, mode := range []string{sandbox.NetNone, sandbox.NetSinkhole} {
			start := time.Now()
			res, err := audit.Run(ctx, d, audit.Options{Target: pinned, Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{Network: mode}})
			if err != nil {
				return err
			}
			wall := time.Since(start)
			idle := time.Duration(0)
			for _, pt := range res.Manifest.Run.PhaseTimingMS {
				if pt.Phase == m.PhaseIdle {
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
	return nil
}

// BatchScaling times the same batch serially and with the default number
// of parallel jobs.
func BatchScaling(ctx context.Context, w io.Writer, d audit.Deps, o Options) error {
	modes := []string{"read-credentials", "exec-shell", "bashrc", "leak-env", "post-fetch", "dns-hex", "mail", "symlink-canary", "noisy", "read-notes"}
	var list strings.Builder
	list.WriteString("idle: {quiet: 1s, min: 500ms, max: 10s}\nservers:\n")
	for i := range o.Batch {
		fmt.Fprintf(&list, "  fixture-%02d:\n    target: %s\n    args: [%s]\n", i, strconv.Quote(o.Fixture), modes[i%len(modes)])
	}
	cfg, err := config.Parse("bench.yml", []byte(list.String()))
	if err != nil {
		return err
	}
	// Warm the package cache and image so both runs measure audits only.
	if _, err := audit.Run(ctx, d, audit.Options{Target: o.Fixture, Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{Network: sandbox.NetNone}, Timing: audit.TimingOptions{IdleMax: time.Second}}); err != nil {
		return err
	}
	jobs := batch.DefaultJobs(batch.SandboxesPerAudit(audit.Options{Witness: true}))
	fmt.Fprintf(w, "batch of %d servers (fixture variants, sinkhole, every tool called, witness run on as in batch):\n", o.Batch)
	walls := map[int]time.Duration{}
	for _, j := range []int{1, jobs} {
		if _, done := walls[j]; done {
			continue
		}
		out, err := os.MkdirTemp("", "mcp-audit-bench-*")
		if err != nil {
			return err
		}
		start := time.Now()
		// The witness run is on, as in the batch command: an audit holds
		// two sandboxes, which DefaultJobs counts.
		sum, err := batch.Run(ctx, d, batch.Options{List: cfg, Out: out, Jobs: j, ServerTimeout: 5 * time.Minute,
			Base: audit.Options{Witness: true}})
		walls[j] = time.Since(start)
		os.RemoveAll(out)
		if err != nil {
			return err
		}
		if sum.Done != o.Batch {
			return fmt.Errorf("batch with %d jobs: %d of %d servers done, %d failed", j, sum.Done, o.Batch, sum.Failed)
		}
		fmt.Fprintf(w, "  --jobs %d  %6.1f s  (%.1f s per server)\n", j, walls[j].Seconds(), walls[j].Seconds()/float64(o.Batch))
	}
	if jobs > 1 {
		fmt.Fprintf(w, "  speedup --jobs %d over --jobs 1: %.2fx on %d cores\n", jobs, float64(walls[1])/float64(walls[jobs]), runtime.NumCPU())
	} else {
		fmt.Fprintf(w, "  this machine's cores and memory allow one job; no parallel run to compare\n")
	}
	return nil
}

// initLatency starts the server and measures from the moment the
// entrypoint launched it (CLOCK_REALTIME, shared with the host) to the
// initialize response.
func initLatency(ctx context.Context, d audit.Deps, target string, traced bool) (time.Duration, error) {
	// No network sink here: this measures the tracer alone.
	p, err := audit.Prepare(ctx, d, audit.Options{Target: target, Sandbox: audit.SandboxOptions{Network: sandbox.NetNone}})
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
	if started := art.Status.Started; !started.IsZero() {
		return answered.Sub(started), nil
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

// ExerciseCost times the full exercise of a server with many tools.
func ExerciseCost(ctx context.Context, w io.Writer, d audit.Deps, server string) error {
	ex, err := Pin(ctx, d, server)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := audit.Run(ctx, d, audit.Options{Target: ex, Timing: audit.TimingOptions{CallTimeout: 5 * time.Second}})
	if err != nil {
		return err
	}
	outcomes := map[string]int{}
	tools := map[string]bool{}
	for _, c := range res.Manifest.Calls {
		outcomes[c.Outcome]++
		if c.Kind == "tool" {
			tools[c.Name] = true
		}
	}
	var calls time.Duration
	for _, pt := range res.Manifest.Run.PhaseTimingMS {
		if pt.Phase == "calls" {
			calls = time.Duration(pt.MS) * time.Millisecond
		}
	}
	n := len(res.Manifest.Calls)
	fmt.Fprintf(w, "exercising %s end to end (every tool, prompt and resource, sinkhole):\n", ex)
	fmt.Fprintf(w, "  %.1f s wall, of which %.1f s calls; %d calls %v\n", time.Since(start).Seconds(), calls.Seconds(), n, outcomes)
	fmt.Fprintf(w, "  cost per call: %.2f s (answer and settle; %d calls)\n", calls.Seconds()/float64(max(n, 1)), n)
	fmt.Fprintf(w, "  cost per tool: %.2f s (every call of the phase over %d tools, each called twice)\n\n",
		calls.Seconds()/float64(max(len(tools), 1)), len(tools))
	return nil
}
