// Command mcp-audit tells you what an MCP server really does before you
// trust it. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-audit/mcp-audit/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
