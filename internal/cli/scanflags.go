package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/scan"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// scanFlags are the flags scan and init share: what to read and how to
// audit it.
type scanFlags struct {
	common          commonFlags
	failOn          string
	allowIncomplete bool
	jobs            int
	timeout         time.Duration
	runs            int
	network         string
	out             string
	fs              *flag.FlagSet
}

func (f *scanFlags) register(fs *flag.FlagSet) {
	f.common.register(fs)
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding is at or above this severity (default: high)")
	fs.BoolVar(&f.allowIncomplete, "allow-incomplete", false, "a server that could not be audited, or not completely, passes with a warning instead of exiting 4")
	f.fs = fs
	fs.IntVar(&f.jobs, "jobs", batch.DefaultJobs(f.common.sandboxes()), jobsUsage)
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit per server")
	fs.IntVar(&f.runs, "runs", 1, "audit each server N times and keep only behavior seen every time")
	fs.StringVar(&f.network, "network", "", "the sandbox's network mode for every server (default: sinkhole)")
	fs.StringVar(&f.out, "out", "", "keep the results here (records, manifests, RESULTS.md, report.html, the mcp-audit.yml audited); a new directory (default: a temporary one, removed)")
}

func (f *scanFlags) check() error {
	if !setFlags(f.fs)["jobs"] {
		f.jobs = batch.DefaultJobs(f.common.sandboxes())
	}
	switch {
	case f.jobs < 1:
		return fmt.Errorf("%w: --jobs must be at least 1", verdict.ErrUsage)
	case f.runs < 1:
		return fmt.Errorf("%w: --runs must be at least 1", verdict.ErrUsage)
	}
	if err := checkDurations(duration{"timeout", f.timeout, false}); err != nil {
		return err
	}
	if err := checkNetwork(f.network); err != nil {
		return err
	}
	if f.out != "" {
		if ents, err := os.ReadDir(filepath.Join(f.out, "records")); err == nil && len(ents) > 0 {
			return fmt.Errorf("%w: --out %s holds the results of an earlier run; name a new directory", verdict.ErrUsage, f.out)
		}
	}
	return f.common.check()
}

// prepare checks the flags and the report's file, and makes the scan
// options (set lets the command add its own) and checks them: every
// mistake is a usage error before anything is read or audited.
func (f *scanFlags) prepare(env *Env, files []string, out string, set func(*scan.Options)) (scan.Options, func(), error) {
	if err := checkOutput("o", out); err != nil {
		return scan.Options{}, nil, err
	}
	if err := f.check(); err != nil {
		return scan.Options{}, nil, err
	}
	o, done, err := f.options(env, files)
	if err != nil {
		return o, nil, err
	}
	if set != nil {
		set(&o)
	}
	if err := o.Validate(); err != nil {
		done()
		return o, nil, err
	}
	return o, done, nil
}

// options are the scan options of the flags and the files named. The
// returned function removes the temporary results directory.
func (f *scanFlags) options(env *Env, files []string) (scan.Options, func(), error) {
	wd, err := os.Getwd()
	if err != nil {
		return scan.Options{}, nil, fmt.Errorf("%w: %w", audit.ErrRuntime, err)
	}
	home := env.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	o := scan.Options{Env: clientconfig.Env{Home: home, Dir: wd, OS: runtime.GOOS, Getenv: env.Getenv}, Files: files,
		FailOn: f.failOn, AllowIncomplete: f.allowIncomplete, Out: f.out, Jobs: f.jobs, ServerTimeout: f.timeout, Runs: f.runs,
		Base: f.common.base(env, f.network), RemoteLoopback: env.TestRemoteLoopback}
	done := func() {}
	if o.Out == "" {
		dir, err := os.MkdirTemp("", "mcp-audit-scan-")
		if err != nil {
			return o, nil, fmt.Errorf("%w: %w", audit.ErrRuntime, err)
		}
		o.Out, done = dir, func() { os.RemoveAll(dir) }
	}
	if fetcher, err := f.common.fetcher(env); err == nil {
		o.Exists = packageExists(fetcher)
	}
	return o, done, nil
}

// packageExists asks the npm registry or the PyPI index whether a package
// exists; a 404 is "no".
func packageExists(f *target.Fetcher) clientconfig.PackageExists {
	return func(ctx context.Context, kind, name string) (bool, error) {
		var err error
		switch kind {
		case clientconfig.KindNPM:
			_, err = f.Registry.Fetch(ctx, name)
		case clientconfig.KindPyPI:
			_, err = f.PyPIFiles(ctx, name)
		}
		if errors.Is(err, target.ErrUsage) {
			return false, nil
		}
		return err == nil, err
	}
}

// auditScan plans the scan, says what it found, and audits it: the engine
// is reached only when a server is to be sandboxed.
func auditScan(ctx context.Context, env *Env, f *scanFlags, o scan.Options) (*scan.Result, error) {
	p, err := scan.NewPlan(ctx, o)
	if err != nil {
		return nil, err
	}
	printPlan(env, p, o)
	pr := newProgress(env, f.common.quiet)
	defer pr.done()
	if pr != nil {
		o.Base.Progress, o.Progress = pr.hook(), pr
	}
	var deps audit.Deps
	if p.Sandboxed() > 0 {
		d, closeEngine, err := f.common.deps(ctx, env)
		if err != nil {
			return nil, err
		}
		defer closeEngine()
		if err := ensureImage(ctx, d, f.common); err != nil {
			return nil, err
		}
		deps = d
	}
	return scan.Run(ctx, deps, p, o)
}

// printPlan says on stderr what was read, what could not be, and what
// will be audited.
func printPlan(env *Env, p *scan.Plan, o scan.Options) {
	for _, pr := range p.Scan.Problems {
		fmt.Fprintf(env.Stderr, "mcp-audit: %s\n", textsafe.Line(problemLine(pr, o.Env.Home), 1000))
	}
	res := p.Scan
	if len(res.Files) == 0 {
		fmt.Fprintln(env.Stderr, "scan: no MCP client configuration file found in the documented places (docs/scan.md); name a file to read it")
		return
	}
	remote := fmt.Sprintf("%d remote (not contacted without --remote)", countKind(res, clientconfig.KindRemote))
	if o.Remote {
		remote = fmt.Sprintf("%d remote, surface only", p.Remotes())
	}
	fmt.Fprintf(env.Stderr, "scan: %d configuration %s read, %d %s: %d to sandbox, %s\n", len(res.Files),
		plural(len(res.Files), "file", "files"), len(res.Servers), plural(len(res.Servers), "server", "servers"), p.Sandboxed(), remote)
}

func problemLine(p clientconfig.Problem, home string) string {
	s := scan.Where(p.Path, p.Line, home) + ": "
	if p.Server != "" {
		s += "server " + p.Server + ": "
	}
	return s + p.Message
}

func countKind(res *clientconfig.Result, kind string) int {
	n := 0
	for _, s := range res.Servers {
		if s.Kind == kind {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
