package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runImage(ctx context.Context, env *Env, args []string) error {
	if err := wantsHelp(env, "image", args); err != nil {
		return err
	}
	if len(args) == 0 || (args[0] != "build" && args[0] != "status") {
		return fmt.Errorf("%w: usage: mcp-audit image build [--flavor auto|dockerfile|offline] | image status", verdict.ErrUsage)
	}
	fs := newFlagSet(env, "image")
	ref := fs.String("image", sandbox.DefaultImage, "image tag")
	flavor := fs.String("flavor", sandbox.FlavorAuto, "auto, dockerfile (FROM node:22-bookworm-slim) or offline (debootstrap + host node)")
	offline := fs.Bool("offline", false, "shorthand for --flavor offline")
	mirror := fs.String("mirror", "", "Debian mirror for offline builds (default: the one apt uses)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(err)
	}
	if *offline {
		*flavor = sandbox.FlavorOffline
	}
	eng, err := sandbox.Connect(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	if args[0] == "status" {
		id, ok, err := sandbox.ImageStatus(ctx, eng, *ref)
		if err != nil {
			return err
		}
		switch {
		case id == "":
			fmt.Fprintf(env.Stdout, "%s: missing (it is built on first audit, or run: mcp-audit image build)\n", *ref)
		case !ok:
			fmt.Fprintf(env.Stdout, "%s: %s, outdated (version %s needed; run: mcp-audit image build)\n", *ref, id, sandbox.ImageVersion)
		default:
			fmt.Fprintf(env.Stdout, "%s: %s, current\n", *ref, id)
		}
		return nil
	}
	if err := sandbox.BuildImage(ctx, eng, sandbox.ImageOptions{Ref: *ref, Flavor: *flavor, Mirror: *mirror, Log: env.Stderr}); err != nil {
		return err
	}
	id, _, err := sandbox.ImageStatus(ctx, eng, *ref)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s %s\n", *ref, id)
	return nil
}
