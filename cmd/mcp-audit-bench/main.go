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
	only := flag.String("only", "", "run one measurement only: witness")
	fixture := flag.String("fixture", "testdata/fixtures/fixture-server", "fixture server directory for the batch comparison")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fix, _ := filepath.Abs(*fixture)
	self, _ := os.Executable()
	if *only == "witness" {
		err := withDeps(ctx, func(d audit.Deps) error { return bench.WitnessCost(ctx, os.Stdout, d, *server, *runs) })
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcp-audit-bench:", err)
			stop()
			os.Exit(3)
		}
		return
	}
	if err := run(ctx, bench.Options{Server: *server, Runs: *runs, Exercise: *exercise, Batch: *batchN, Fixture: fix, Self: self}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-audit-bench:", err)
		stop()
		os.Exit(3)
	}
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
