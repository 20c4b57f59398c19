// Package audit runs the pipeline for one server: fetch the target on the
// host without running its code, start it in the sandbox with canaries,
// drive the MCP handshake, wait for it to go idle, then parse the trace and
// classify it into a behavior manifest.
package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/differ"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// Sandbox layout.
const (
	User      = "dev"
	UID       = 1000
	Home      = "/home/dev"
	Workspace = "/home/dev/workspace"
	AppRoot   = "/srv/mcp"
	NodeBin   = "/usr/local/bin/node"
	PythonBin = "/usr/bin/python3"
	resolver  = "127.0.0.1"
)

// Options configure one audit. The CLI flags, the configuration file
// (ForServer) and the Action fill the same struct; its zero value is the
// default audit: every default is stated once, below (Default…), and the
// flags show the same constants.
type Options struct {
	// What to audit.
	Target string
	// Bin chooses among a package's executables, or names an entry file.
	Bin string
	// Command replaces the package entry: an argv run in the package root.
	Command []string
	// Args are passed to the server. {workspace} and {home} expand to the
	// sandbox paths.
	Args []string
	// Env are extra NAME=VALUE variables for the server.
	Env []string
	// CanaryEnv are variables the server needs, filled with canaries.
	CanaryEnv []string
	// AllCanaries plants every provider canary variable, not only the
	// declared ones and a per-run subset of the others (canary.Choice).
	// Default off; test harnesses set it for fixtures that steal one
	// particular variable (the CLI reads MCP_AUDIT_ALL_CANARIES).
	AllCanaries bool

	// How to exercise it. Calls is "all" (default) or "none"; Tools
	// limits calls to these tools; ToolArgs replaces synthesized arguments
	// per tool. Scripts is "auto" (run install scripts when the package
	// tree has any) or "skip".
	Calls    string
	Tools    []string
	ToolArgs map[string]json.RawMessage
	Scripts  string

	// How it speaks MCP: Transport is stdio (default) or http (Streamable
	// HTTP on HTTPPort and HTTPPath inside the sandbox, reached through
	// the sink). ClientInfo is the client identity sent in initialize,
	// NAME/VERSION (default: a popular client's, see
	// mcpclient.DefaultClientName).
	Transport  string
	HTTPPort   int
	HTTPPath   string
	ClientInfo string
	// Protocol is the MCP revision the opening speaks: mcpclient's
	// ProtocolAuto (the default: the 2026-07-28 probe, then the 2025
	// handshake), ProtocolModern or ProtocolLegacy (--protocol).
	Protocol string

	// Which runs: Witness also runs the server without the tracer, side
	// by side, and records what only that run did (runs.go); Run numbers
	// the runs of RunStable and picks the client environment profile
	// (pickClientEnv).
	Witness bool
	Run     int
	// Differential also runs the server twice more side by side — once
	// with the same secrets (calibration) and once with others of the
	// same shapes — and reports what it emitted that follows the planted
	// values, whatever the encoding (internal/differential).
	Differential bool
	// NoCodeCoverage leaves out the measure of how much of a Node
	// server's own code ran (NODE_V8_COVERAGE in the traced run;
	// --code-coverage=false).
	NoCodeCoverage bool

	Sandbox SandboxOptions
	Timing  TimingOptions

	// Progress, when set, hears each step of the audit.
	Progress func(Step)
}

// SandboxOptions are the sandbox's: image, network and limits.
type SandboxOptions struct {
	Image       string // default sandbox.DefaultImage
	ImageFlavor string
	// Network is sinkhole (default), none or open.
	Network string
	// Responses are canned HTTP answers per host for the sinkhole.
	Responses map[string]sinklog.Response
	// TrustFiles are CA bundles the server trusts in open mode (the host's
	// NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, --ca-file).
	TrustFiles []string
	// AnswerReserved are reserved top-level domains (e.g. example, test)
	// the sinkhole answers anyway. Default: none, so *.example and *.test
	// get NXDOMAIN as from a real resolver; the test harness sets them for
	// its fixtures (the CLI reads MCP_AUDIT_ANSWER_RESERVED).
	AnswerReserved []string
	// UpstreamDNS is where open mode forwards DNS (host:port); default: the
	// engine's resolver.
	UpstreamDNS   string
	Limits        sandbox.Limits
	MaxTraceBytes int64 // default DefaultMaxTraceBytes
	// KeepTrace, if set, is where the raw trace is saved.
	KeepTrace string
	// Seed are files seeded into the home and the workspace besides the
	// canary set's (test harnesses: a realistic workspace to destroy).
	Seed []canary.File
}

// TimingOptions bound the audit in time; zero means the default.
type TimingOptions struct {
	StartupTimeout time.Duration // for the opening to be answered
	CallTimeout    time.Duration // per list, tool, prompt or resource call
	// CallBudget bounds all calls together; the rest are skipped.
	CallBudget     time.Duration
	InstallTimeout time.Duration // for the install phase
	IdleQuiet      time.Duration // idle ends after this long without trace growth…
	IdleMin        time.Duration // …but not before this…
	IdleMax        time.Duration // …and at the latest after this
	// Dwell is the least real time idle lasts (batch and the scheduled
	// Action set DefaultDwell: waiting is cheap there).
	Dwell time.Duration
	// ClockRate runs the server's clocks and waits this many times faster
	// than real time (0: DefaultClockRate; 1: real time; see clock.go).
	ClockRate int
	// ServerTimeMin extends idle until startup, calls and idle together
	// covered this much server time (0: DefaultServerTimeMin).
	ServerTimeMin time.Duration
	Deadline      time.Duration // hard cap on the whole run
}

// The defaults of Options, stated once: the flags show them, the code
// applies them (defaults).
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultCallTimeout    = 10 * time.Second
	DefaultCallBudget     = 5 * time.Minute
	DefaultInstallTimeout = 5 * time.Minute
	DefaultIdleQuiet      = 2 * time.Second
	DefaultIdleMin        = 1 * time.Second
	DefaultIdleMax        = 20 * time.Second
	DefaultDeadline       = 10 * time.Minute
	DefaultMaxTraceBytes  = 512 << 20
	DefaultNetwork        = sandbox.NetSinkhole
)

// ForServer is the audit of one version (tgt) of a server of the
// configuration: the one road from mcp-audit.yml to an audit, for check,
// batch and the Action alike. base carries the command line's settings
// (image, CA files, dwell); its network, when set, overrides the
// server's mode, which overrides the file's.
func ForServer(cfg *config.Config, s *config.Server, tgt string, base Options) Options {
	o := base
	o.Target, o.Bin, o.Args, o.Env, o.CanaryEnv = tgt, s.Bin, s.Args, s.EnvList(), s.CanaryEnv
	o.Calls, o.Tools, o.ToolArgs = s.Calls, s.Tools, s.ToolArgsJSON
	o.Transport, o.HTTPPort, o.HTTPPath = s.Transport, s.HTTPPort, s.HTTPPath
	o.Sandbox.Network = cmp.Or(o.Sandbox.Network, s.Network, cfg.Network)
	t := &o.Timing
	t.IdleQuiet, t.IdleMin, t.IdleMax = time.Duration(cfg.Idle.Quiet), time.Duration(cfg.Idle.Min), time.Duration(cfg.Idle.Max)
	if cfg.Idle.Dwell > 0 {
		t.Dwell = time.Duration(cfg.Idle.Dwell)
	}
	t.Deadline = time.Duration(s.Timeout)
	return o
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	t := &o.Timing
	def(&t.StartupTimeout, DefaultStartupTimeout)
	def(&t.CallTimeout, DefaultCallTimeout)
	def(&t.CallBudget, DefaultCallBudget)
	def(&t.InstallTimeout, DefaultInstallTimeout)
	def(&t.IdleQuiet, DefaultIdleQuiet)
	def(&t.IdleMin, DefaultIdleMin)
	def(&t.IdleMax, DefaultIdleMax)
	def(&t.Deadline, DefaultDeadline)
	def(&t.ServerTimeMin, DefaultServerTimeMin)
	if t.ClockRate <= 0 {
		t.ClockRate = DefaultClockRate
	}
	o.Calls = cmp.Or(o.Calls, CallsAll)
	o.Scripts = cmp.Or(o.Scripts, ScriptsAuto)
	sb := &o.Sandbox
	if sb.MaxTraceBytes <= 0 {
		sb.MaxTraceBytes = DefaultMaxTraceBytes
	}
	sb.Network = cmp.Or(sb.Network, DefaultNetwork)
	sb.Image = cmp.Or(sb.Image, sandbox.DefaultImage)
}

// Values of Options.Calls and Options.Scripts.
const (
	CallsAll    = "all"
	CallsNone   = "none"
	ScriptsAuto = "auto"
	ScriptsSkip = "skip"
)

// Deps are the adapters an audit uses.
type Deps struct {
	Engine  sandbox.Engine
	Fetcher *target.Fetcher
	Log     *slog.Logger
	// Secret is the installation's secret (internal/variant); nil: the
	// one in the fetcher's cache directory, made on first use.
	Secret variant.Secret
}

// Result is a finished audit.
type Result struct {
	Manifest *m.Manifest
	// Stderr is the sanitized, canary-redacted tail of the server's stderr.
	Stderr string
	// Evidence holds full network exchanges (bodies, headers with secrets
	// masked) for the evidence file; never part of the manifest.
	Evidence []classify.Evidence
	// outside is what the sandbox saw from outside the server that the
	// manifest does not hold, for the witness comparison.
	outside *differ.Outside
	// records are everything the run emitted, raw, for the comparison of
	// runs that differ in their secrets; never published.
	records []differential.Record
	// opening is what the session learned when it opened (nil: it did
	// not), for the era run.
	opening *mcpclient.Opening
}

// ErrRuntime marks failures of the audit machinery (as opposed to the
// server misbehaving, which is an outcome in the manifest).
var ErrRuntime = errors.New("audit failed")

// Run audits one server. A server that crashes, hangs or is killed still
// yields a manifest; an error means the audit itself could not run.
func Run(ctx context.Context, d Deps, o Options) (*Result, error) {
	o.defaults()
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	t0 := time.Now()
	o.step(StepInstall, 0, 0)
	defer o.step(StepDone, 0, 0)
	p, err := Prepare(ctx, d, o)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	d.Log.Debug("prepared", "ms", time.Since(t0).Milliseconds())
	return executeRuns(ctx, d, o, p)
}

// Progress phases, in the order an audit goes through them.
const (
	StepInstall  = "install"
	StepStartup  = "startup"
	StepCalls    = "calls"
	StepIdle     = "idle"
	StepAnalysis = "analysis"
	StepDone     = "done" // the audit is over, whatever its outcome
)

// Step is where an audit is, for progress output: its target, its phase,
// and in the calls phase how many of the planned calls are done.
type Step struct {
	Target      string
	Phase       string
	Done, Total int
}

// step reports a step to o.Progress, if any.
func (o *Options) step(phase string, done, total int) {
	if o.Progress != nil {
		o.Progress(Step{Target: o.Target, Phase: phase, Done: done, Total: total})
	}
}
