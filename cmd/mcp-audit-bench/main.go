// Command mcp-audit-bench measures mcp-audit on the real Docker engine and
// prints ratios measured in one run. `make bench` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/bench"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == bench.AnalyzeFlag {
		// The child half of the hostile-trace measurement.
		if _, _, err := bench.AnalyzeTrace(context.Background(), os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "mcp-audit-bench:", err)
			os.Exit(3)
		}
		return
	}
	server := flag.String("server", "npm:@modelcontextprotocol/server-memory", "npm spec of the server to measure")
	runs := flag.Int("runs", 7, "runs per measurement")
	exercise := flag.String("exercise", "npm:@modelcontextprotocol/server-everything", "server to exercise end to end (empty: skip)")
	batchN := flag.Int("batch", 20, "servers in the --jobs 1 vs --jobs N batch comparison (0: skip)")
	only := flag.String("only", "", "run one measurement only: init, sink, start, witness, exercise, analysis, clock, variants or batch")
	fixture := flag.String("fixture", "testdata/fixtures/fixture-server", "fixture server directory for the batch comparison")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fix, _ := filepath.Abs(*fixture)
	self, _ := os.Executable()
	o := bench.Options{Server: *server, Runs: *runs, Exercise: *exercise, Batch: *batchN, Fixture: fix, Self: self}
	var err error
	if *only != "" {
		err = withDeps(ctx, func(d audit.Deps) error { return one(ctx, d, *only, o) })
	} else {
		err = run(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-audit-bench:", err)
		stop()
		os.Exit(3)
	}
}

// one runs the single measurement named by -only.
func one(ctx context.Context, d audit.Deps, name string, o bench.Options) error {
	w := os.Stdout
	switch name {
	case "exercise":
		return bench.ExerciseCost(ctx, w, d, o.Exercise)
	case "analysis":
		return bench.AnalysisCost(ctx, w, o.Self)
	case "batch":
		return bench.BatchScaling(ctx, w, d, o)
	case "clock":
		return bench.ClockCost(ctx, w, d, o.Fixture, o.Runs)
	case "variants":
		return bench.VariantsCost(ctx, w, d, o.Fixture, max(3, o.Runs/2))
	case "init", "sink", "start", "witness":
	default:
		return fmt.Errorf("-only %q: want init, sink, start, witness, exercise, analysis, clock, variants or batch", name)
	}
	pinned, err := bench.Pin(ctx, d, o.Server)
	if err != nil {
		return err
	}
	switch name {
	case "init":
		return bench.TracingOverhead(ctx, w, d, pinned, o.Runs)
	case "sink":
		return bench.SinkCost(ctx, w, d, pinned, o.Runs)
	case "start":
		return bench.StartCost(ctx, w, d, pinned, o.Runs)
	}
	return bench.WitnessCost(ctx, w, d, pinned, o.Runs)
}

func run(ctx context.Context, o bench.Options) error {
	return withDeps(ctx, func(d audit.Deps) error { return bench.Run(ctx, os.Stdout, d, o) })
}

// withDeps connects to the engine and the registry and calls f.
func withDeps(ctx context.Context, f func(audit.Deps) error) error {
	eng, err := sandbox.Connect(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	reg, err := target.NewRegistry(target.LoadNPMConfig(os.Getenv))
	if err != nil {
		return err
	}
	d := audit.Deps{Engine: eng, Fetcher: &target.Fetcher{Registry: reg, CacheDir: target.DefaultCacheDir(), Installer: &sandbox.PackageInstaller{Engine: eng}}}
	return f(d)
}
