package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Every flag is checked here before any engine is asked or any work
// starts: a mistake is a usage error (exit 2) naming the flag, never a
// Docker error or an audit that runs with it.

// setFlags are the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	out := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { out[f.Name] = true })
	return out
}

// duration is a duration flag and whether zero is meaningful for it.
type duration struct {
	name   string
	v      time.Duration
	zeroOK bool
}

// checkDurations refuses negative durations, and zero where a zero limit
// would mean no time at all.
func checkDurations(ds ...duration) error {
	for _, d := range ds {
		switch {
		case d.v < 0:
			return fmt.Errorf("%w: --%s must not be negative, got %s", verdict.ErrUsage, d.name, d.v)
		case d.v == 0 && !d.zeroOK:
			return fmt.Errorf("%w: --%s must be longer than 0", verdict.ErrUsage, d.name)
		}
	}
	return nil
}

// oneOf checks a flag whose value is one of a few words; "" is the
// default.
func oneOf(name, v string, allowed ...string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%w: --%s %q: want %s", verdict.ErrUsage, name, v, strings.Join(allowed, ", "))
}

// checkNetwork checks --network.
func checkNetwork(v string) error {
	return oneOf("network", v, sandbox.NetSinkhole, sandbox.NetNone, sandbox.NetOpen)
}

// checkOutput checks that a file can be written at path before any work
// is done: its directory exists (mcp-audit creates none: a typo would
// scatter directories) and path is not a directory.
func checkOutput(name, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%w: -%s %s is a directory; name a file in it", verdict.ErrUsage, name, path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: -%s %s: the directory %s does not exist", verdict.ErrUsage, name, path, dir)
	}
	return nil
}

// checkCombinations refuses flags that contradict each other or mean
// nothing without another one.
func (f *auditFlags) checkCombinations(set map[string]bool) error {
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{verdict.ErrUsage}, a...)...)
	}
	switch {
	case f.idleMin > f.idleMax:
		return refuse("--idle-min %s is longer than --idle-max %s", f.idleMin, f.idleMax)
	case f.calls == audit.CallsNone && len(f.tools) > 0:
		return refuse("--calls none calls nothing, so --tool %s would not be called", f.tools[0])
	case f.calls == audit.CallsNone && len(f.toolArgs) > 0:
		return refuse("--calls none calls nothing, so --tool-args would not be used")
	case f.transport != audit.TransportHTTP && (set["http-port"] || set["http-path"]):
		return refuse("--http-port and --http-path apply to --transport http only")
	case f.upstream != "" && f.network != sandbox.NetOpen:
		return refuse("--upstream-dns applies to --network open only (the sinkhole answers every name itself)")
	case f.keepTrace != "" && f.keepTrace == f.out:
		return refuse("--keep-trace and -o name the same file")
	}
	for _, spec := range f.toolArgs {
		name, _, _ := strings.Cut(spec, "=")
		if len(f.tools) > 0 && !slices.Contains(f.tools, name) {
			return refuse("--tool-args %s: %s is not among the --tool selection, so it would not be called", name, name)
		}
	}
	return nil
}

// checkValues checks the audit command's words, numbers and durations.
func (f *auditFlags) checkValues() error {
	if err := checkDurations(duration{"timeout", f.timeout, false}, duration{"startup-timeout", f.startupTimeout, false},
		duration{"call-timeout", f.callTimeout, false}, duration{"call-budget", f.callBudget, false},
		duration{"install-timeout", f.installTimeout, false}, duration{"idle-quiet", f.idleQuiet, true},
		duration{"idle-min", f.idleMin, true}, duration{"idle-max", f.idleMax, true}, duration{"dwell", f.dwell, true}); err != nil {
		return err
	}
	if f.httpPort < 1 || f.httpPort > 65535 {
		return fmt.Errorf("%w: --http-port %d is not a port number (1-65535)", verdict.ErrUsage, f.httpPort)
	}
	for _, c := range []error{
		f.commonFlags.check(),
		checkNetwork(f.network),
		oneOf("transport", f.transport, audit.TransportStdio, audit.TransportHTTP),
		checkOutput("o", f.out), checkOutput("-evidence", f.evidence), checkOutput("-keep-trace", f.keepTrace),
	} {
		if c != nil {
			return c
		}
	}
	return nil
}

// checkClientInfo checks --client-info NAME/VERSION.
func checkClientInfo(v string) error {
	if v == "" {
		return nil
	}
	if name, _, _ := strings.Cut(v, "/"); strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: --client-info wants NAME/VERSION, got %q", verdict.ErrUsage, v)
	}
	return nil
}

// check checks the flags every auditing command shares.
func (c *commonFlags) check() error {
	if c.verbose && c.quiet {
		return fmt.Errorf("%w: -v and -q contradict each other", verdict.ErrUsage)
	}
	if c.clockRate < 1 {
		return fmt.Errorf("%w: --clock-rate must be at least 1, got %d", verdict.ErrUsage, c.clockRate)
	}
	if err := oneOf("image-flavor", c.flavor, sandbox.FlavorAuto, sandbox.FlavorDockerfile, sandbox.FlavorOffline); err != nil {
		return err
	}
	if _, err := mcpclient.ParseProtocol(c.protocol); err != nil {
		return fmt.Errorf("%w: --protocol: %v", verdict.ErrUsage, err)
	}
	return checkClientInfo(c.clientInfo)
}

// localPackageProblem says why a directory target cannot be audited as a
// package, before anything is installed: no package.json (a Python
// directory's pyproject.toml or setup.py makes it a Python target), no
// index.js to run by default, and no --bin. nil for other targets.
func localPackageProblem(spec target.Spec, bin string) error {
	if spec.Kind != target.KindDir || bin != "" {
		return nil
	}
	for _, f := range []string{"package.json", "index.js"} {
		if _, err := os.Stat(filepath.Join(spec.Path, f)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: %s has no package.json or pyproject.toml: it is not a Node or Python package (name the file to run with --bin, or a command with --cmd)",
		verdict.ErrUsage, spec.Path)
}

// checkResultsDir refuses an input that is not a batch results
// directory before anything is written: its index.json or records/ are
// what merge and publish read.
func checkResultsDir(d string) error {
	st, err := os.Stat(d)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s is a file, not a batch results directory", verdict.ErrUsage, d)
	}
	for _, f := range []string{"index.json", "records"} {
		if _, err := os.Stat(filepath.Join(d, f)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is not a batch results directory: it has no index.json or records/ (mcp-audit batch --out DIR writes one)", verdict.ErrUsage, d)
}
