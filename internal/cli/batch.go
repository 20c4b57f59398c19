package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runBatch(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "batch")
	var common commonFlags
	common.register(fs)
	list := fs.String("list", "", "the servers to audit, in mcp-audit.yml format (required)")
	out := fs.String("out", "results", "results directory")
	jobs := fs.Int("jobs", batch.DefaultJobs(common.sandboxes()), jobsUsage)
	shard := fs.String("shard", "", "audit only shard K of N (K/N), for a CI matrix; merge the shards with mcp-audit merge")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit per server")
	retry := fs.Bool("retry-failed", false, "audit again servers that failed to install or audit in an earlier run")
	runs := fs.Int("runs", 1, "audit each server N times and keep only behavior seen every time")
	network := fs.String("network", "", "override the list's network mode")
	dwell := fs.Duration("dwell", audit.DefaultDwell, "observe idle for at least this long in real time (waiting is cheap in a batch)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	defaultJobs := batch.DefaultJobs(common.sandboxes())
	if !setFlags(fs)["jobs"] {
		*jobs = defaultJobs
	}
	if *list == "" {
		return fmt.Errorf("%w: batch needs --list FILE", verdict.ErrUsage)
	}
	switch {
	case *jobs < 1:
		return fmt.Errorf("%w: --jobs must be at least 1", verdict.ErrUsage)
	case *timeout <= 0:
		return fmt.Errorf("%w: --timeout must be positive", verdict.ErrUsage)
	case *runs < 1:
		return fmt.Errorf("%w: --runs must be at least 1", verdict.ErrUsage)
	case common.clockRate < 1:
		return fmt.Errorf("%w: --clock-rate must be at least 1", verdict.ErrUsage)
	}
	if err := checkDurations(duration{"dwell", *dwell, true}); err != nil {
		return err
	}
	if err := checkNetwork(*network); err != nil {
		return err
	}
	if err := common.check(); err != nil {
		return err
	}
	if *jobs > defaultJobs {
		fmt.Fprintf(env.Stderr, "batch: note: --jobs %d exceeds what this machine's cores and memory suggest (%d)\n", *jobs, defaultJobs)
	}
	k, n, err := batch.ParseShard(*shard)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	cfg, err := config.Load(*list)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	deps, closeEngine, err := common.deps(ctx, env)
	if err != nil {
		return err
	}
	defer closeEngine()
	pr := newProgress(env, common.quiet)
	defer pr.done()
	base := common.base(env, *network)
	base.Timing.Dwell = *dwell
	opts := batch.Options{
		List: cfg, Out: *out, Jobs: *jobs, ShardK: k, ShardN: n, ServerTimeout: *timeout, RetryFailed: *retry, Runs: *runs,
		Base: base,
	}
	if pr != nil {
		// One line per finished server, above the live line.
		opts.Base.Progress, opts.Progress = pr.hook(), pr
	}
	if err := ensureImage(ctx, deps, common); err != nil {
		return err
	}
	start := time.Now()
	sum, err := batch.Run(ctx, deps, opts)
	fmt.Fprintf(env.Stderr, "batch: %d selected, %d already done, %d audited, %d failed, in %s; results in %s\n",
		sum.Selected, sum.Skipped, sum.Done, sum.Failed, time.Since(start).Round(time.Second), *out)
	if err == nil && sum.Exercised.Servers > 0 {
		fmt.Fprintf(env.Stderr, "batch: exercised %d servers, %s\n", sum.Exercised.Servers, textsafe.Line(sum.Exercised.String(), 2000))
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(env.Stderr, "batch: interrupted; finished servers are kept, rerun to continue")
		}
		return err
	}
	return nil
}

// ensureImage prepares the sandbox image once, before parallel audits
// race to build it (batch, scan).
func ensureImage(ctx context.Context, deps audit.Deps, common commonFlags) error {
	if _, err := sandbox.EnsureImage(ctx, deps.Engine, sandbox.ImageOptions{Ref: common.image, Flavor: common.flavor}); err != nil {
		return fmt.Errorf("%w: %w", audit.ErrRuntime, err)
	}
	return nil
}
