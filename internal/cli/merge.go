package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runMerge(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "merge")
	out := fs.String("out", "results", "merged results directory")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: usage: mcp-audit merge --out DIR SHARD_DIR…", verdict.ErrUsage)
	}
	for _, d := range pos {
		if err := checkResultsDir(d); err != nil {
			return err
		}
	}
	if err := batch.Merge(*out, pos); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "merged %d result directories into %s\n", len(pos), *out)
	return nil
}
