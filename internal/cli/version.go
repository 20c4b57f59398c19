package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

func runVersion(ctx context.Context, env *Env, args []string) error {
	if err := parseFlags(newFlagSet(env, "version"), args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "mcp-audit %s\n", version())
	return nil
}

// version is this build's version and the sandbox image it uses.
func version() string {
	return fmt.Sprintf("%s (sandbox image %s)", buildinfo.Version(), sandbox.DefaultImage)
}
