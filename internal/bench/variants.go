package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// VariantsCost times a clean fixture audit as the CLI runs it by default
// (the witness, calibration and secrets runs side by side with the
// primary) against the primary run alone, alternating, and breaks the
// default audit's wall time into its phases (mcp-audit-bench -only
// variants). The era run is not in it: the fixture speaks one era.
func VariantsCost(ctx context.Context, w io.Writer, d audit.Deps, fixture string, runs int) error {
	walls := map[bool][]time.Duration{}
	phases := map[string][]time.Duration{}
	var names string
	for range max(3, runs) {
		for _, all := range []bool{false, true} {
			start := time.Now()
			res, err := audit.Run(ctx, d, audit.Options{Target: fixture, Witness: all, Differential: all})
			if err != nil {
				return err
			}
			walls[all] = append(walls[all], time.Since(start))
			if !all {
				continue
			}
			man := res.Manifest
			if len(man.Derived) > 0 || len(man.Witness) > 0 {
				return fmt.Errorf("the clean fixture differs between its runs: derived %+v, witness %+v", man.Derived, man.Witness)
			}
			var vs []string
			for _, v := range man.Run.Variants {
				vs = append(vs, v.Name)
			}
			names = strings.Join(vs, ", ")
			for _, pt := range man.Run.PhaseTimingMS {
				phases[pt.Phase] = append(phases[pt.Phase], time.Duration(pt.MS)*time.Millisecond)
			}
		}
	}
	one, all := median(walls[false]), median(walls[true])
	fmt.Fprintf(w, "default audit of a clean fixture as the CLI runs it (%s side by side), median:\n", names)
	fmt.Fprintf(w, "  primary run alone  %.2f s wall   %v\n", one.Seconds(), fmtAll(walls[false]))
	fmt.Fprintf(w, "  every variant      %.2f s wall   %v (goal <= 4 s)\n", all.Seconds(), fmtAll(walls[true]))
	fmt.Fprintf(w, "  variants' added cost: %+.2f s per audit (%.2fx; goal <= 1.30x)\n", (all - one).Seconds(), float64(all)/float64(one))
	var parts []string
	for _, ph := range []string{m.PhaseStartup, "calls", m.PhaseIdle, m.PhaseWitness} {
		if ds := phases[ph]; len(ds) > 0 {
			label := ph
			if ph == m.PhaseWitness {
				label = "all runs, start to compared"
			}
			parts = append(parts, fmt.Sprintf("%s %.2f s", label, median(ds).Seconds()))
		}
	}
	fmt.Fprintf(w, "  where the time goes (median per phase): %s\n\n", strings.Join(parts, ", "))
	return nil
}
