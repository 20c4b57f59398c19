package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

func runCleanup(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "cleanup")
	images := fs.Bool("images", false, "also remove cached package images (mcp-audit-pkg:*)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	eng, err := sandbox.Connect(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	n, err := sandbox.GC(ctx, eng)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "removed %d leftover sandbox container(s)\n", n)
	if *images {
		n, err := sandbox.RemovePackageImages(ctx, eng)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "removed %d cached package image(s)\n", n)
	}
	return nil
}
