package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// helps are each command's usage line, what it does when the line does
// not say, and examples, printed by -h/--help (exit 0) and after a usage
// error.
var helps = map[string]struct{ usage, examples, about string }{
	"audit": {"mcp-audit audit [flags] TARGET [-- SERVER ARGS]",
		"mcp-audit audit npm:@modelcontextprotocol/server-memory -o manifest.json\n  mcp-audit audit ./my-server -o m.json --format sarif -- {workspace}",
		"TARGET is npm:NAME[@VERSION|RANGE|TAG], pypi:NAME[@VERSION|SPECIFIER], oci:IMAGE, a package directory\n(package.json or pyproject.toml), a .tgz, a wheel (.whl) or an sdist (.tar.gz).\n" +
			"{workspace} and {home} in server args expand to the sandbox's decoy workspace and home.\n" +
			"The manifest goes to stdout or -o; --format other than text prints the findings report on stdout."},
	"diff": {"mcp-audit diff [flags] OLD.json NEW.json",
		"mcp-audit diff old.json new.json\n  mcp-audit diff --config mcp-audit.yml --server mail --format html -o diff.html old.json new.json", ""},
	"report": {"mcp-audit report [flags] MANIFEST|RESULTS_DIR...",
		"mcp-audit report --config mcp-audit.yml study/results\n  mcp-audit report --format sarif -o report.sarif manifest.json",
		"Re-judges stored manifests (or every manifest of batch results) under the current policy,\nwith the exit codes of audit."},
	"version": {"mcp-audit version (or mcp-audit --version)", "mcp-audit --version", ""},
	"sink":    {"mcp-audit sink --config FILE", "mcp-audit sink --config /sink/config.json", "The network sink inside the sandbox; mcp-audit starts it, people need not."},
	"action": {"mcp-audit action", "mcp-audit action   # in action.yml; inputs come from INPUT_* variables",
		"The GitHub Action's entrypoint: it runs on a runner, reading its inputs from the environment (docs/action.md)."},
	"check": {"mcp-audit check [--config FILE] [--server NAME]... [--new-releases] [--format text|json|markdown|sarif|html] [-o FILE]",
		"mcp-audit check\n  mcp-audit check --new-releases --format markdown -o report.md", ""},
	"scan": {"mcp-audit scan [flags] [CLIENT_FILE...]",
		"mcp-audit scan\n  mcp-audit scan --remote .mcp.json ~/.cursor/mcp.json\n  mcp-audit scan --list --format json",
		"Finds the MCP client configuration files on this machine (Claude Desktop, Claude Code, Cursor, VS Code,\n" +
			"Windsurf, Gemini CLI, Codex, Zed, Continue, Cline, Copilot CLI) or reads the ones named, audits every\n" +
			"server in the sandbox, its configured variables planted as canaries (never their values), and prints\n" +
			"one report. Remote servers are audited surface only with --remote. docs/scan.md has the details.\n" +
			"Exit status: 0 every server passed, 1 one fails, 2 a configuration could not be read, 3 runtime failure\n" +
			"(e.g. Docker unreachable), 4 one was not audited or not completely (--fail-on none reports without failing)."},
	"init": {"mcp-audit init [flags] --from-clients | CLIENT_FILE...",
		"mcp-audit init --from-clients\n  mcp-audit init .mcp.json --config mcp-audit.yml",
		"Audits the clients' servers as scan does, then writes mcp-audit.yml with each server pinned to the\n" +
			"version audited and records baselines for the versions that pass, so that check works from then on."},
	"baseline update": {"mcp-audit baseline update [--config FILE] [--server NAME] [--version V] [--manifest FILE] [--accept-risk REASON]",
		"mcp-audit baseline update --server mail\n  mcp-audit baseline update --manifest out/npm/mail/1.0.16.json", ""},
	"discover": {"mcp-audit discover [--config FILE]", "mcp-audit discover", ""},
	"batch": {"mcp-audit batch --list FILE --out DIR [--jobs N] [--shard K/N]",
		"mcp-audit batch --list study/servers.yml --out results\n  mcp-audit batch --list study/servers.yml --out shard-1 --shard 1/4", ""},
	"merge":   {"mcp-audit merge --out DIR SHARD_DIR...", "mcp-audit merge --out results shard-1 shard-2", ""},
	"publish": {"mcp-audit publish --out SITE [--mirror URL] RESULTS_DIR...", "mcp-audit publish --out site results-week-1 results-week-2", ""},
	"export":  {"mcp-audit export [--format toolhive|docker] MANIFEST", "mcp-audit export --format docker manifest.json", ""},
	"explain": {"mcp-audit explain [KIND]", "mcp-audit explain canary\n  mcp-audit explain sensitive-file/high",
		"Prints what a finding kind means and what to do about it (docs/policy.md has the same text at the\nkind's anchor); without KIND, lists the kinds. A SARIF rule id (KIND/SEVERITY) works too."},
	"image":   {"mcp-audit image build [--flavor offline|dockerfile] | image status", "mcp-audit image build --flavor offline\n  mcp-audit image status", ""},
	"cleanup": {"mcp-audit cleanup [--images]", "mcp-audit cleanup --images", ""},
}

// newFlagSet is a command's flag set whose -h prints its usage line,
// examples and flags.
func newFlagSet(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		h := helps[name]
		fmt.Fprintf(env.Stderr, "Usage: %s\n\n", h.usage)
		if h.about != "" {
			fmt.Fprintf(env.Stderr, "%s\n\n", h.about)
		}
		fmt.Fprintf(env.Stderr, "Examples:\n  %s\n\n", h.examples)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(env.Stderr, "Flags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// wantsHelp answers -h/--help given before a subcommand word ("baseline
// -h"), which the flag set never sees.
func wantsHelp(env *Env, name string, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		newFlagSet(env, name).Usage()
		return flag.ErrHelp
	}
	return nil
}

// findConfig is the configuration file a command uses: the one named, or
// mcp-audit.yml found by walking up from the current directory, as git
// finds its repository.
func findConfig(path string) string {
	if path != config.DefaultFile {
		return path
	}
	dir, err := os.Getwd()
	if err != nil {
		return path
	}
	for {
		p := filepath.Join(dir, config.DefaultFile)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		dir = parent
	}
}

// positive checks a numeric flag that must be above zero.
func positive(name string, v int64) error {
	if v <= 0 {
		return fmt.Errorf("%w: --%s must be a positive number, got %d", verdict.ErrUsage, name, v)
	}
	return nil
}
