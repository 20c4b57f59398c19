package cli

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runTool is the hidden `mcp-audit tool` command: the interpreter of the
// tool wrappers inside an audited OCI image (see sandbox/oci.go). The
// kernel runs it as `mcp-audit tool WRAPPER ARGS…`; it replaces itself
// with the bundled loader running the tool of that name. It is not meant
// for people.
func runTool(_ context.Context, _ *Env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: tool wants the wrapper's path", verdict.ErrUsage)
	}
	argv, err := sandbox.ToolArgv(args[0], args[1:])
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	if err := syscall.Exec(argv[0], argv, os.Environ()); err != nil {
		return fmt.Errorf("running %s: %w", argv[0], err)
	}
	return nil
}
