// Package cli wires the subcommands. Errors map to exit codes in exactly one
// place (exitCode); nothing below main calls os.Exit.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Exit statuses.
const (
	ExitOK          = 0   // clean, or findings below the threshold
	ExitFindings    = 1   // findings at or above --fail-on
	ExitUsage       = 2   // bad flags, arguments, config or target
	ExitRuntime     = 3   // the tool could not do its job (Docker unreachable, …)
	ExitIncomplete  = 4   // nothing failed, but a server could not be audited as a verdict needs
	ExitInterrupted = 130 // Ctrl-C
)

// Env is the process environment a command sees.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// StderrIsTerminal enables progress output.
	StderrIsTerminal bool
	// TestRemoteLoopback lets scan's surface audits reach a remote server
	// on a loopback address (remote.Options.AllowLoopback). It is for
	// tests, whose fixture servers listen on 127.0.0.1: Run never sets it
	// and no flag does.
	TestRemoteLoopback bool
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

func commands() []command {
	return []command{
		{"audit", "audit one MCP server and write its behavior manifest", runAudit},
		{"sink", "", runSink},     // internal: the network sink inside the sandbox
		{"tool", "", runTool},     // internal: runs a bundled tool inside an audited OCI image
		{"action", "", runAction}, // the GitHub Action's entrypoint (action.yml)
		{"diff", "compare two manifests and judge what changed", runDiff},
		{"report", "re-judge stored manifests or batch results under the current policy (no re-audit)", runReport},
		{"scan", "audit the MCP servers your clients (Claude, Cursor, VS Code, …) are configured to run", runScan},
		{"init", "write an mcp-audit.yml of your clients' servers, pinned to the versions audited, with baselines", runInit},
		{"check", "audit the servers of mcp-audit.yml and compare each with its baseline", runCheck},
		{"baseline", "record reviewed manifests as baselines (baseline update)", runBaseline},
		{"discover", "list npm, PyPI and image releases newer than the baselines", runDiscover},
		{"batch", "audit many servers in parallel: manifests, RESULTS.md, HTML report, feed", runBatch},
		{"merge", "merge batch shards into one result set", runMerge},
		{"publish", "turn batch results into a static site: manifests, pages, index.json, Atom feed of changes", runPublish},
		{"export", "turn a manifest into an allow-list (ToolHive profile, Docker catalog allowHosts)", runExport},
		{"explain", "say what a finding kind means and what to do about it (explain KIND)", runExplain},
		{"image", "build or inspect the sandbox image (image build [--flavor offline|dockerfile])", runImage},
		{"cleanup", "remove sandbox containers left behind by interrupted runs", runCleanup},
		{"version", "print the version", runVersion},
	}
}

// Run executes mcp-audit with args (without the program name) and returns
// the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return RunEnv(ctx, args, &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv})
}

// RunEnv executes mcp-audit in env; Run is RunEnv with a plain Env.
func RunEnv(ctx context.Context, args []string, env *Env) int {
	stdout, stderr := env.Stdout, env.Stderr
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			env.StderrIsTerminal = true
		}
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = []string{"version"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if err := linuxOnly(hostOS, c.name); err != nil {
				return exitCode(err, stderr, ctx)
			}
			err := c.run(ctx, env, args[1:])
			return exitCode(err, stderr, ctx)
		}
	}
	fmt.Fprintf(stderr, "mcp-audit: unknown command %q\n\n", args[0])
	usage(stderr)
	return ExitUsage
}

// exitCode maps an error to the exit status and prints it.
func exitCode(err error, stderr io.Writer, ctx context.Context) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, verdict.ErrFindings):
		return ExitFindings
	case errors.Is(err, verdict.ErrIncomplete):
		return ExitIncomplete
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err())):
		fmt.Fprintln(stderr, "mcp-audit: interrupted; sandbox containers were removed")
		return ExitInterrupted
	case errors.Is(err, verdict.ErrUsage), errors.Is(err, target.ErrUsage), errors.Is(err, config.ErrInvalid):
		printErr(stderr, err)
		return ExitUsage
	case errors.Is(err, sandbox.ErrDockerUnavailable), errors.Is(err, audit.ErrRuntime):
		printErr(stderr, err)
		return ExitRuntime
	}
	printErr(stderr, err)
	return ExitRuntime
}

// printErr prints an error for a person: errors can quote what a server,
// a registry or npm said, so they go through textsafe like any report.
func printErr(w io.Writer, err error) {
	fmt.Fprintf(w, "mcp-audit: %s\n", textsafe.Clean(err.Error()))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mcp-audit runs an MCP server in an instrumented Docker sandbox and records what it
really does: files, hosts, processes, and whether it touches planted fake credentials.

Usage:
  mcp-audit <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		if c.summary != "" {
			fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprint(w, `
Examples:
  mcp-audit audit npm:@modelcontextprotocol/server-memory@latest -o manifest.json
  mcp-audit audit ./my-server-dir -- --some-server-arg
  mcp-audit audit npm:@modelcontextprotocol/server-filesystem -- {workspace}

Exit status: 0 clean or below --fail-on, 1 findings at or above --fail-on,
2 usage error, 3 runtime failure (e.g. Docker unreachable), 4 incomplete (the audit
could not observe what a verdict needs; --allow-incomplete accepts it), 130 interrupted.
Run "mcp-audit <command> -h" for the flags of a command.
`)
}
