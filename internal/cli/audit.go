package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// commonFlags are shared by every command that runs audits.
type commonFlags struct {
	registry   string
	caFiles    stringList
	cacheDir   string
	prerelease bool
	image      string
	flavor     string
	verbose    bool
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.registry, "registry", "", "npm registry URL (default: NPM_CONFIG_REGISTRY, .npmrc, then npm's public registry)")
	fs.Var(&c.caFiles, "ca-file", "extra CA bundle to trust for the registry (repeatable; NODE_EXTRA_CA_CERTS and SSL_CERT_FILE are honored too)")
	fs.StringVar(&c.cacheDir, "cache-dir", "", "where installs are cached (default: "+target.DefaultCacheDir()+")")
	fs.BoolVar(&c.prerelease, "prerelease", false, "let version ranges match prereleases")
	fs.StringVar(&c.image, "image", sandbox.DefaultImage, "sandbox image")
	fs.StringVar(&c.flavor, "image-flavor", sandbox.FlavorAuto, "how to build the image when missing: auto, dockerfile or offline")
	fs.BoolVar(&c.verbose, "v", false, "verbose logging")
}

func (c *commonFlags) fetcher(env *Env) (*target.Fetcher, error) {
	getenv := env.Getenv
	cfg := target.LoadNPMConfig(getenv)
	if c.registry != "" {
		cfg.Registry = strings.TrimSuffix(c.registry, "/") + "/"
	}
	cfg.CAFiles = append(cfg.CAFiles, c.caFiles...)
	reg, err := target.NewRegistry(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	cache := c.cacheDir
	if cache == "" {
		cache = target.DefaultCacheDir()
	}
	return &target.Fetcher{Registry: reg, CacheDir: cache, Prerelease: c.prerelease}, nil
}

// deps builds what every auditing command needs: the logger, the
// fetcher, and a connection to Docker, which the caller closes.
func (c *commonFlags) deps(ctx context.Context, env *Env) (audit.Deps, func(), error) {
	log := newLogger(env, c.verbose)
	fetcher, err := c.fetcher(env)
	if err != nil {
		return audit.Deps{}, nil, err
	}
	fetcher.Log = log
	eng, err := sandbox.Connect(ctx)
	if err != nil {
		return audit.Deps{}, nil, err
	}
	fetcher.Installer = &sandbox.PackageInstaller{Engine: eng, Image: c.image}
	return audit.Deps{Engine: eng, Fetcher: fetcher, Log: log}, func() { eng.Close() }, nil
}

// auditFlags holds the audit command's options; audit.Options is filled
// from it.
type auditFlags struct {
	commonFlags
	out            string
	bin            string
	cmd            string
	env            stringList
	canaryEnv      stringList
	failOn         string
	network        string
	startupTimeout time.Duration
	idleQuiet      time.Duration
	idleMin        time.Duration
	idleMax        time.Duration
	timeout        time.Duration
	memory         int64
	pids           int64
	keepTrace      string
	quiet          bool
	evidence       string
	responses      stringList
	upstream       string
	calls          string
	tools          stringList
	toolArgs       stringList
	callTimeout    time.Duration
	callBudget     time.Duration
	scripts        string
	installTimeout time.Duration
}

func runAudit(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var f auditFlags
	f.register(fs)
	fs.StringVar(&f.out, "o", "", "write the manifest to this file (default: stdout)")
	fs.StringVar(&f.bin, "bin", "", "which package executable to run, or an entry file inside the package")
	fs.StringVar(&f.cmd, "cmd", "", "start the server with this command in the package directory instead of its bin")
	fs.Var(&f.env, "env", "extra environment variable NAME=VALUE for the server (repeatable)")
	fs.Var(&f.canaryEnv, "canary-env", "environment variable the server needs, filled with a canary (repeatable)")
	fs.StringVar(&f.failOn, "fail-on", policy.DefaultFailOn.String(), "exit 1 when a finding is at or above: info, low, medium, high, critical, none")
	fs.StringVar(&f.network, "network", "sinkhole", "network mode: sinkhole (answer everything locally, nothing leaves), none (no network at all), open (real egress; names still logged)")
	fs.StringVar(&f.evidence, "evidence", "", "write full network exchanges here (default: next to -o as NAME.evidence.jsonl)")
	fs.StringVar(&f.calls, "calls", audit.CallsAll, "exercise the server: all (every tool, prompt and resource) or none")
	fs.Var(&f.tools, "tool", "call only this tool (repeatable)")
	fs.Var(&f.toolArgs, "tool-args", "arguments for one tool instead of synthesized ones: NAME=JSON (repeatable)")
	fs.DurationVar(&f.callTimeout, "call-timeout", 10*time.Second, "timeout per call")
	fs.DurationVar(&f.callBudget, "call-budget", 5*time.Minute, "time for all calls together; the rest are skipped")
	fs.StringVar(&f.scripts, "scripts", audit.ScriptsAuto, "install scripts: auto (run them in the sandbox, phase install) or skip")
	fs.DurationVar(&f.installTimeout, "install-timeout", 5*time.Minute, "timeout for the install phase")
	fs.StringVar(&f.upstream, "upstream-dns", "", "open mode: resolver to forward DNS to, HOST:PORT (default: the engine's)")
	fs.Var(&f.responses, "http-response", "canned sinkhole answer HOST=STATUS[:BODYFILE] (repeatable; HOST * is the default)")
	fs.DurationVar(&f.startupTimeout, "startup-timeout", 30*time.Second, "how long initialize may take")
	fs.DurationVar(&f.idleQuiet, "idle-quiet", 2*time.Second, "idle ends after this long without traced activity")
	fs.DurationVar(&f.idleMin, "idle-min", 1*time.Second, "minimum idle observation")
	fs.DurationVar(&f.idleMax, "idle-max", 20*time.Second, "maximum idle observation")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "hard limit for the whole sandbox run")
	fs.Int64Var(&f.memory, "memory", 2048, "memory limit in MiB")
	fs.Int64Var(&f.pids, "pids", 512, "process limit")
	fs.StringVar(&f.keepTrace, "keep-trace", "", "save the raw strace output to this file")
	fs.BoolVar(&f.quiet, "q", false, "do not print the summary")
	fs.Usage = func() {
		fmt.Fprint(env.Stderr, "Usage: mcp-audit audit [flags] TARGET [-- SERVER ARGS]\n\n"+
			"TARGET is npm:NAME[@VERSION|RANGE|TAG], a package directory, or a .tgz.\n"+
			"{workspace} and {home} in server args expand to the sandbox's decoy workspace and home.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, pass, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: audit takes exactly one TARGET, got %d", ErrUsage, len(pos))
	}
	failOn, err := policy.ParseSeverity(f.failOn)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	for _, e := range f.env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("%w: --env wants NAME=VALUE, got %q", ErrUsage, e)
		}
	}
	responses, err := parseResponses(f.responses)
	if err != nil {
		return err
	}
	toolArgs, err := parseToolArgs(f.toolArgs)
	if err != nil {
		return err
	}
	if f.calls != audit.CallsAll && f.calls != audit.CallsNone {
		return fmt.Errorf("%w: --calls wants all or none", ErrUsage)
	}
	if f.scripts != audit.ScriptsAuto && f.scripts != audit.ScriptsSkip {
		return fmt.Errorf("%w: --scripts wants auto or skip", ErrUsage)
	}
	opts := audit.Options{
		Calls: f.calls, Tools: f.tools, ToolArgs: toolArgs, CallTimeout: f.callTimeout, CallBudget: f.callBudget,
		Scripts: f.scripts, InstallTimeout: f.installTimeout,
		Responses: responses, TrustFiles: trustFiles(env, f.caFiles), UpstreamDNS: f.upstream,
		Target: pos[0], Bin: f.bin, Args: pass, Env: f.env, CanaryEnv: f.canaryEnv,
		Image: f.image, ImageFlavor: f.flavor, Network: f.network,
		StartupTimeout: f.startupTimeout, IdleQuiet: f.idleQuiet, IdleMin: f.idleMin, IdleMax: f.idleMax,
		Deadline: f.timeout, KeepTrace: f.keepTrace,
		Limits: sandbox.Limits{MemoryBytes: f.memory << 20, PIDs: f.pids},
	}
	if f.cmd != "" {
		if opts.Command, err = splitCommand(f.cmd); err != nil {
			return err
		}
	}
	deps, closeEngine, err := f.deps(ctx, env)
	if err != nil {
		return err
	}
	defer closeEngine()
	log := deps.Log
	res, err := audit.Run(ctx, deps, opts)
	if err != nil {
		if res != nil && ctx.Err() == nil {
			// The server ran but its evidence could not be collected: the
			// manifest says so (status "error") and the exit status is 3.
			if werr := writeManifest(env, f.out, res.Manifest); werr != nil {
				log.Warn("writing manifest", "err", werr)
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
	findings := policy.Evaluate(res.Manifest, policy.Policy{FailOn: failOn})
	if !f.quiet {
		report.Summary(env.Stderr, res.Manifest, findings, failOn)
	}
	if policy.Failed(findings, failOn) {
		return ErrFindings
	}
	return nil
}

// writeManifest writes canonical JSON to a file (atomically) or stdout.
func writeManifest(env *Env, out string, man *m.Manifest) error {
	data, err := m.Encode(man)
	if err != nil {
		return err
	}
	if out == "" || out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	return writeFileAtomic(out, data)
}

func writeFileAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	tmp, err := os.CreateTemp(dir, ".mcp-audit-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// evidencePath is where full network exchanges go: --evidence, or next to
// the manifest file. With the manifest on stdout and no --evidence there is
// none.
func evidencePath(out, explicit string) string {
	if explicit != "" || out == "" || out == "-" {
		return explicit
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".evidence.jsonl"
}

func writeEvidence(path string, res *audit.Result) error {
	if path == "" || len(res.Evidence) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range res.Evidence {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return writeFileAtomic(path, buf.Bytes())
}

// trustFiles are the CA bundles a server in open mode trusts besides the
// image's: what the host trusts for the registry.
func trustFiles(env *Env, extra []string) []string {
	var out []string
	for _, k := range []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"} {
		if v := env.Getenv(k); v != "" {
			out = append(out, v)
		}
	}
	return append(out, extra...)
}

// parseToolArgs reads --tool-args NAME=JSON flags.
func parseToolArgs(specs []string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, s := range specs {
		name, js, ok := strings.Cut(s, "=")
		if !ok || name == "" || !json.Valid([]byte(js)) || !strings.HasPrefix(strings.TrimSpace(js), "{") {
			return nil, fmt.Errorf("%w: --tool-args wants NAME={json object}, got %q", ErrUsage, s)
		}
		out[name] = json.RawMessage(js)
	}
	return out, nil
}
