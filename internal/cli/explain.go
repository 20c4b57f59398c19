package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runExplain prints what a finding kind means and what to do about it:
// the text of its section in docs/policy.md and of its SARIF rule's help.
// Without a kind it lists them.
func runExplain(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "explain")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		for _, k := range report.Kinds() {
			d, _ := report.Explain(k)
			fmt.Fprintf(env.Stdout, "%-18s %s\n", k, d.Title)
		}
		return nil
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: explain takes one finding kind, got %d", verdict.ErrUsage, len(pos))
	}
	// A SARIF rule id (canary/critical) explains its kind.
	kind, _, _ := strings.Cut(pos[0], "/")
	d, ok := report.Explain(kind)
	if !ok {
		return fmt.Errorf("%w: %q is no finding kind; the kinds are %s", verdict.ErrUsage, pos[0], strings.Join(report.Kinds(), ", "))
	}
	report.WriteExplain(env.Stdout, d)
	return nil
}
