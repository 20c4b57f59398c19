package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// auditFlags holds the audit command's flags; audit.Options is filled
// from them by options.
type auditFlags struct {
	commonFlags
	out             string
	format          formatFlag
	bin             string
	cmd             string
	env             stringList
	canaryEnv       stringList
	failOn          string
	allowIncomplete bool
	codeCoverage    bool
	network         string
	startupTimeout  time.Duration
	idleQuiet       time.Duration
	idleMin         time.Duration
	idleMax         time.Duration
	dwell           time.Duration
	timeout         time.Duration
	memory          int64
	pids            int64
	keepTrace       string
	evidence        string
	responses       stringList
	upstream        string
	calls           string
	tools           stringList
	toolArgs        stringList
	callTimeout     time.Duration
	callBudget      time.Duration
	scripts         string
	installTimeout  time.Duration
	transport       string
	httpPort        int
	httpPath        string
}

func runAudit(ctx context.Context, env *Env, args []string) error {
	var f auditFlags
	fs := f.flagSet(env)
	pos, pass, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: audit takes exactly one TARGET, got %d", verdict.ErrUsage, len(pos))
	}
	failOn, err := policy.ParseSeverity(f.failOn)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	if err := f.checkValues(); err != nil {
		return err
	}
	if err := f.checkCombinations(setFlags(fs)); err != nil {
		return err
	}
	opts, err := f.options(env, pos[0], pass)
	if err != nil {
		return err
	}
	spec, err := target.ParseSpec(opts.Target)
	if err != nil {
		return err // a usage error, before any engine is asked for
	}
	if f.cmd == "" {
		if err := localPackageProblem(spec, f.bin); err != nil {
			return err
		}
	}
	deps, closeEngine, err := f.deps(ctx, env)
	if err != nil {
		return err
	}
	defer closeEngine()
	pr := newProgress(env, f.quiet)
	opts.Progress = pr.hook()
	res, err := audit.Run(ctx, deps, opts)
	pr.done()
	if err != nil {
		if res != nil && ctx.Err() == nil {
			// The server ran but its evidence could not be collected: the
			// manifest says so (status "error") and the exit status is 3.
			if werr := writeManifest(env, f.out, res.Manifest); werr != nil {
				deps.Log.Warn("writing manifest", "err", werr)
			}
		}
		return err
	}
	if err := writeManifest(env, f.out, res.Manifest); err != nil {
		return err
	}
	if err := writeEvidence(evidencePath(f.out, f.evidence), res); err != nil {
		return err
	}
	pol := policy.Policy{FailOn: failOn, AllowIncomplete: f.allowIncomplete}
	findings := policy.Evaluate(res.Manifest, pol)
	if !f.quiet {
		report.Summary(env.Stderr, res.Manifest, findings, pol)
		report.AllowBlock(env.Stderr, policy.SuggestAllow(res.Manifest, findings), "")
	}
	if f.format != report.FormatText {
		// The same findings report as `mcp-audit report --format F` of
		// the manifest, which went to -o.
		var buf bytes.Buffer
		if err := renderReports(&buf, string(f.format), nil, []report.DiffReport{judged(res.Manifest.Target.Name, res.Manifest, pol)}); err != nil {
			return err
		}
		if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return verdict.Gate(policy.Verdict(findings, pol, coverage.Incomplete(res.Manifest)), pol.FailOn > policy.Critical)
}

func (f *auditFlags) flagSet(env *Env) *flag.FlagSet {
	fs := newFlagSet(env, "audit")
	f.register(fs)
	fs.StringVar(&f.out, "o", "", "write the manifest to this file (default: stdout)")
	formatVar(fs, &f.format, " (text: the summary on stderr; any other also prints the findings report on stdout, so the manifest needs -o)")
	fs.StringVar(&f.bin, "bin", "", "which package executable to run, or an entry file inside the package")
	fs.StringVar(&f.cmd, "cmd", "", "start the server with this command in the package directory instead of its bin")
	fs.Var(&f.env, "env", "extra environment variable NAME=VALUE for the server (repeatable)")
	fs.Var(&f.canaryEnv, "canary-env", "environment variable the server needs, filled with a canary (repeatable)")
	fs.StringVar(&f.failOn, "fail-on", policy.DefaultFailOn.String(), "exit 1 when a finding is at or above: info, low, medium, high, critical, none")
	fs.BoolVar(&f.codeCoverage, "code-coverage", true, "measure how much of a Node server's own code ran (V8 coverage in the traced run; shown, never a finding)")
	fs.BoolVar(&f.allowIncomplete, "allow-incomplete", false, "an incomplete audit (the server did not start, answer or work; calls skipped; a cut trace) passes with a warning instead of exiting 4")
	fs.StringVar(&f.network, "network", audit.DefaultNetwork, "network mode: sinkhole (answer everything locally, nothing leaves), none (no network at all), open (real egress; names still logged)")
	fs.StringVar(&f.transport, "transport", audit.TransportStdio, "how the server speaks MCP: stdio, or http (Streamable HTTP, reached through the sink)")
	fs.IntVar(&f.httpPort, "http-port", audit.DefaultHTTPPort, "with --transport http: the port the server listens on inside the sandbox")
	fs.StringVar(&f.httpPath, "http-path", audit.DefaultHTTPPath, "with --transport http: the MCP endpoint's path")
	fs.StringVar(&f.evidence, "evidence", "", "write full network exchanges here (default: next to -o as NAME.evidence.jsonl)")
	fs.StringVar(&f.calls, "calls", audit.CallsAll, "exercise the server: all (every tool, prompt and resource) or none")
	fs.Var(&f.tools, "tool", "call only this tool (repeatable)")
	fs.Var(&f.toolArgs, "tool-args", "arguments for one tool instead of synthesized ones: NAME=JSON (repeatable)")
	fs.DurationVar(&f.callTimeout, "call-timeout", audit.DefaultCallTimeout, "timeout per call")
	fs.DurationVar(&f.callBudget, "call-budget", audit.DefaultCallBudget, "time for all calls together; the rest are skipped")
	fs.StringVar(&f.scripts, "scripts", audit.ScriptsAuto, "install scripts: auto (run them in the sandbox, phase install) or skip")
	fs.DurationVar(&f.installTimeout, "install-timeout", audit.DefaultInstallTimeout, "timeout for the install phase")
	fs.StringVar(&f.upstream, "upstream-dns", "", "open mode: resolver to forward DNS to, HOST:PORT (default: the engine's)")
	fs.Var(&f.responses, "http-response", "canned sinkhole answer HOST=STATUS[:BODYFILE] (repeatable; HOST * is the default)")
	fs.DurationVar(&f.startupTimeout, "startup-timeout", audit.DefaultStartupTimeout, "how long initialize may take")
	fs.DurationVar(&f.idleQuiet, "idle-quiet", audit.DefaultIdleQuiet, "idle ends after this long without traced activity")
	fs.DurationVar(&f.idleMin, "idle-min", audit.DefaultIdleMin, "minimum idle observation")
	fs.DurationVar(&f.idleMax, "idle-max", audit.DefaultIdleMax, "maximum idle observation")
	fs.DurationVar(&f.dwell, "dwell", 0, "observe idle for at least this long in real time (batch: "+audit.DefaultDwell.String()+")")
	fs.DurationVar(&f.timeout, "timeout", audit.DefaultDeadline, "hard limit for the whole sandbox run")
	fs.Int64Var(&f.memory, "memory", 2048, "memory limit in MiB")
	fs.Int64Var(&f.pids, "pids", 512, "process limit")
	fs.StringVar(&f.keepTrace, "keep-trace", "", "save the raw strace output to this file")
	return fs
}

// options checks the flag values and builds the audit of target with the
// server arguments args.
func (f *auditFlags) options(env *Env, target string, args []string) (audit.Options, error) {
	for name, v := range map[string]int64{"memory": f.memory, "pids": f.pids, "clock-rate": int64(f.clockRate)} {
		if err := positive(name, v); err != nil {
			return audit.Options{}, err
		}
	}
	if f.format != report.FormatText && (f.out == "" || f.out == "-") {
		return audit.Options{}, fmt.Errorf("%w: --format %s prints the findings on stdout, so the manifest needs -o FILE", verdict.ErrUsage, f.format)
	}
	for _, e := range f.env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return audit.Options{}, fmt.Errorf("%w: --env wants NAME=VALUE, got %q", verdict.ErrUsage, e)
		}
	}
	responses, err := parseResponses(f.responses)
	if err != nil {
		return audit.Options{}, err
	}
	toolArgs, err := parseToolArgs(f.toolArgs)
	if err != nil {
		return audit.Options{}, err
	}
	if f.calls != audit.CallsAll && f.calls != audit.CallsNone {
		return audit.Options{}, fmt.Errorf("%w: --calls wants all or none", verdict.ErrUsage)
	}
	if f.scripts != audit.ScriptsAuto && f.scripts != audit.ScriptsSkip {
		return audit.Options{}, fmt.Errorf("%w: --scripts wants auto or skip", verdict.ErrUsage)
	}
	opts := audit.Options{
		Target: target, Bin: f.bin, Args: args, Env: f.env, CanaryEnv: f.canaryEnv, AllCanaries: allCanaries(env),
		Calls: f.calls, Tools: f.tools, ToolArgs: toolArgs, Scripts: f.scripts,
		Transport: f.transport, HTTPPort: f.httpPort, HTTPPath: f.httpPath, ClientInfo: f.clientInfo,
		Witness: f.witness, Differential: f.differential, NoCodeCoverage: !f.codeCoverage,
		Sandbox: audit.SandboxOptions{Image: f.image, ImageFlavor: f.flavor, Network: f.network,
			Responses: responses, TrustFiles: trustFiles(env, f.caFiles), UpstreamDNS: f.upstream, AnswerReserved: answerReserved(env),
			Limits: sandbox.Limits{MemoryBytes: f.memory << 20, PIDs: f.pids}, KeepTrace: f.keepTrace},
		Timing: audit.TimingOptions{StartupTimeout: f.startupTimeout, CallTimeout: f.callTimeout, CallBudget: f.callBudget,
			InstallTimeout: f.installTimeout, IdleQuiet: f.idleQuiet, IdleMin: f.idleMin, IdleMax: f.idleMax,
			Deadline: f.timeout, Dwell: f.dwell, ClockRate: f.clockRate},
	}
	if f.cmd != "" {
		if opts.Command, err = splitCommand(f.cmd); err != nil {
			return audit.Options{}, err
		}
	}
	return opts, nil
}
