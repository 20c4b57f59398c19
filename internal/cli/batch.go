package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/export"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

func runBatch(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var common commonFlags
	common.register(fs)
	list := fs.String("list", "", "the servers to audit, in mcp-audit.yml format (required)")
	out := fs.String("out", "results", "results directory")
	defaultJobs := batch.DefaultJobs()
	jobs := fs.Int("jobs", defaultJobs, "audits in parallel; the default comes from the cores and memory")
	shard := fs.String("shard", "", "audit only shard K of N (K/N), for a CI matrix; merge the shards with mcp-audit merge")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit per server")
	retry := fs.Bool("retry-failed", false, "audit again servers that failed to install or audit in an earlier run")
	runs := fs.Int("runs", 1, "audit each server N times and keep only behavior seen every time")
	network := fs.String("network", "", "override the list's network mode")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list == "" {
		return fmt.Errorf("%w: batch needs --list FILE", ErrUsage)
	}
	switch {
	case *jobs < 1:
		return fmt.Errorf("%w: --jobs must be at least 1", ErrUsage)
	case *timeout <= 0:
		return fmt.Errorf("%w: --timeout must be positive", ErrUsage)
	case *runs < 1:
		return fmt.Errorf("%w: --runs must be at least 1", ErrUsage)
	}
	if *jobs > defaultJobs {
		fmt.Fprintf(env.Stderr, "batch: note: --jobs %d exceeds what this machine's cores and memory suggest (%d)\n", *jobs, defaultJobs)
	}
	k, n, err := batch.ParseShard(*shard)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	cfg, err := config.Load(*list)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	deps, closeEngine, err := common.deps(ctx, env)
	if err != nil {
		return err
	}
	defer closeEngine()
	opts := batch.Options{
		List: cfg, Out: *out, Jobs: *jobs, ShardK: k, ShardN: n, ServerTimeout: *timeout, RetryFailed: *retry, Runs: *runs,
		Base:     audit.Options{Network: *network, Image: common.image, ImageFlavor: common.flavor, TrustFiles: trustFiles(env, common.caFiles)},
		Progress: env.Stderr,
	}
	// Prepare the image once, before the parallel audits race to build it.
	if _, err := sandbox.EnsureImage(ctx, deps.Engine, sandbox.ImageOptions{Ref: common.image, Flavor: common.flavor}); err != nil {
		return fmt.Errorf("%w: %v", audit.ErrRuntime, err)
	}
	start := time.Now()
	sum, err := batch.Run(ctx, deps, opts)
	fmt.Fprintf(env.Stderr, "batch: %d selected, %d already done, %d audited, %d failed, in %s; results in %s\n",
		sum.Selected, sum.Skipped, sum.Done, sum.Failed, time.Since(start).Round(time.Second), *out)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(env.Stderr, "batch: interrupted; finished servers are kept, rerun to continue")
		}
		return err
	}
	return nil
}

func runMerge(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	out := fs.String("out", "results", "merged results directory")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: usage: mcp-audit merge --out DIR SHARD_DIR...", ErrUsage)
	}
	for _, d := range pos {
		if _, err := os.Stat(d); err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	if err := batch.Merge(*out, pos); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "merged %d result directories into %s\n", len(pos), *out)
	return nil
}

func runExport(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "toolhive", "toolhive (permission profile JSON) or docker (catalog allowHosts YAML)")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: usage: mcp-audit export [--format toolhive|docker] MANIFEST", ErrUsage)
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	man, err := m.Decode(data)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUsage, pos[0], err)
	}
	switch *format {
	case "toolhive":
		b, err := export.ToolHive(man)
		if err != nil {
			return err
		}
		env.Stdout.Write(b)
	case "docker":
		env.Stdout.Write(export.DockerAllowHosts(man))
	default:
		return fmt.Errorf("%w: unknown format %q", ErrUsage, *format)
	}
	return nil
}
