package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// WitnessCost times full default audits (sinkhole, every tool called) of a
// clean server with and without the witness run, alternating, and prints
// the medians and the difference.
func WitnessCost(ctx context.Context, w io.Writer, d audit.Deps, server string, runs int) error {
	p, err := audit.Prepare(ctx, d, audit.Options{Target: server})
	if err != nil {
		return err
	}
	t := p.Manifest.Target
	pinned := target.EcosystemNamed(t.Ecosystem).Pin(t.Name, t.Version)
	p.Close()
	walls := map[bool][]time.Duration{}
	for range max(3, runs/2) {
		for _, on := range []bool{false, true} {
			start := time.Now()
			res, err := audit.Run(ctx, d, audit.Options{Target: pinned, Witness: on})
			if err != nil {
				return err
			}
			if len(res.Manifest.Witness) > 0 {
				return fmt.Errorf("witness run of %s differs from the traced run: %+v", pinned, res.Manifest.Witness)
			}
			walls[on] = append(walls[on], time.Since(start))
		}
	}
	off, on := median(walls[false]), median(walls[true])
	fmt.Fprintf(w, "witness run: full default audit of %s (sinkhole, every tool called), median wall time:\n", pinned)
	fmt.Fprintf(w, "  without witness  %.2f s   %v\n", off.Seconds(), fmtAll(walls[false]))
	fmt.Fprintf(w, "  with witness     %.2f s   %v\n", on.Seconds(), fmtAll(walls[true]))
	fmt.Fprintf(w, "  witness's added cost: %+.2f s per audit (%.2fx)\n\n", (on - off).Seconds(), float64(on)/float64(off))
	return nil
}
