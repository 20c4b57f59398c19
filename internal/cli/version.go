package cli

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

func runVersion(ctx context.Context, env *Env, args []string) error {
	fmt.Fprintf(env.Stdout, "mcp-audit %s\n", version())
	return nil
}

// version is the module version and VCS revision the binary was built
// from, and the sandbox image it uses.
func version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " " + s.Value
			}
		}
	}
	return fmt.Sprintf("%s (sandbox image %s)", v, sandbox.DefaultImage)
}
