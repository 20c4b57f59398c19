package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// StartCost times sandbox.Start alone (containers created, files copied,
// the sink ready, the server started) with and without the sink,
// alternating: the sink's share of an audit's start without the noise of
// the rest of the audit.
func StartCost(ctx context.Context, w io.Writer, d audit.Deps, pinned string, runs int) error {
	starts := map[string][]time.Duration{}
	for range runs {
		for _, mode := range []string{sandbox.NetNone, sandbox.NetSinkhole} {
			dur, err := startOnce(ctx, d, pinned, mode)
			if err != nil {
				return err
			}
			starts[mode] = append(starts[mode], dur)
		}
	}
	none, sinkhole := median(starts[sandbox.NetNone]), median(starts[sandbox.NetSinkhole])
	fmt.Fprintf(w, "sandbox start (containers created, files in, sink ready, server started), median:\n")
	fmt.Fprintf(w, "  sinkhole (default) %.2f s   %v\n", sinkhole.Seconds(), fmtAll(starts[sandbox.NetSinkhole]))
	fmt.Fprintf(w, "  --network none     %.2f s   %v\n", none.Seconds(), fmtAll(starts[sandbox.NetNone]))
	fmt.Fprintf(w, "  sink ready in: %+.2f s of added start time (goal < 0.5 s)\n\n", (sinkhole - none).Seconds())
	return nil
}

func startOnce(ctx context.Context, d audit.Deps, pinned, mode string) (time.Duration, error) {
	p, err := audit.Prepare(ctx, d, audit.Options{Target: pinned, Sandbox: audit.SandboxOptions{Network: mode}})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	sb := &sandbox.Sandbox{Engine: d.Engine}
	t0 := time.Now()
	run, err := sb.Start(ctx, p.Spec)
	if err != nil {
		return 0, err
	}
	dur := time.Since(t0)
	defer run.Remove()
	_ = run.Stop(ctx, time.Second)
	return dur, nil
}
