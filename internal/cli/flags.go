package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/variant"
	"github.com/mcp-audit/mcp-audit/internal/verdict"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// registryFlags say where packages come from: every command that
// resolves versions has them (discover has only these).
type registryFlags struct {
	registry   string
	indexURL   string
	caFiles    stringList
	cacheDir   string
	prerelease bool
}

func (c *registryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.registry, "registry", "", "npm registry URL (default: NPM_CONFIG_REGISTRY, .npmrc, then npm's public registry)")
	fs.StringVar(&c.indexURL, "index-url", "", "PyPI simple index URL for pypi: targets (default: PIP_INDEX_URL, pip.conf, then pip's public index)")
	fs.Var(&c.caFiles, "ca-file", "extra CA bundle to trust for the registry (repeatable; NODE_EXTRA_CA_CERTS and SSL_CERT_FILE are honored too)")
	fs.StringVar(&c.cacheDir, "cache-dir", "", "where installs are cached (default: "+target.DefaultCacheDir()+")")
	fs.BoolVar(&c.prerelease, "prerelease", false, "let version ranges match prereleases")
}

// commonFlags are shared by every command that runs audits.
type commonFlags struct {
	registryFlags
	image        string
	flavor       string
	verbose      bool
	quiet        bool
	witness      bool
	differential bool
	clientInfo   string
	protocol     string
	clockRate    int
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	c.registryFlags.register(fs)
	fs.StringVar(&c.image, "image", sandbox.DefaultImage, "sandbox image")
	fs.StringVar(&c.flavor, "image-flavor", sandbox.FlavorAuto, "how to build the image when missing: auto, dockerfile or offline")
	fs.BoolVar(&c.verbose, "v", false, "verbose logging")
	fs.BoolVar(&c.quiet, "q", false, "quiet: no progress on stderr (audit: no summary either)")
	fs.BoolVar(&c.witness, "witness", true, "also run the server without the tracer, under another identity, and report what only that run did (anti-analysis)")
	fs.BoolVar(&c.differential, "differential", true, "also run the server with the same secrets and with others, and report output that follows the planted values whatever its encoding")
	fs.StringVar(&c.protocol, "protocol", mcpclient.ProtocolAuto, "MCP revision to open with: auto (2026-07-28 if the server answers it, else the 2025 handshake), "+mcpclient.ProtocolModern+" or "+mcpclient.ProtocolLegacy)
	fs.StringVar(&c.clientInfo, "client-info", "", "clientInfo sent in initialize, NAME/VERSION (default: "+mcpclient.DefaultClientName+"/"+mcpclient.DefaultClientVersion+", a popular client's)")
	fs.IntVar(&c.clockRate, "clock-rate", audit.DefaultClockRate, "run the server's clock this many times faster than real time, so delayed payloads fire (1: real time)")
}

func (c *registryFlags) fetcher(env *Env) (*target.Fetcher, error) {
	cfg := target.LoadNPMConfig(env.Getenv)
	if c.registry != "" {
		cfg.Registry = strings.TrimSuffix(c.registry, "/") + "/"
	}
	cfg.CAFiles = append(cfg.CAFiles, c.caFiles...)
	reg, err := target.NewRegistry(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	cache := c.cacheDir
	if cache == "" {
		cache = target.DefaultCacheDir()
	}
	return &target.Fetcher{Registry: reg, CacheDir: cache, Prerelease: c.prerelease,
		PyPI: target.LoadPyPIConfig(env.Getenv, c.indexURL), PyPIHTTP: reg.HTTP}, nil
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
	secret, err := variant.LoadSecret(fetcher.CacheDir, env.Getenv)
	if err != nil {
		eng.Close()
		return audit.Deps{}, nil, fmt.Errorf("%w: %w", audit.ErrRuntime, err)
	}
	return audit.Deps{Engine: eng, Fetcher: fetcher, Log: log, Secret: secret}, func() { eng.Close() }, nil
}

// base is the audit settings the command line gives every audit of a
// configured server; network overrides the configuration's mode when set.
func (c *commonFlags) base(env *Env, network string) audit.Options {
	return audit.Options{
		Witness: c.witness, Differential: c.differential, ClientInfo: c.clientInfo, Protocol: c.protocol,
		AllCanaries: allCanaries(env), Sandbox:

		// EnvAnswerReserved names reserved top-level domains (comma-separated,
		// e.g. "example,test") the sinkhole answers although a real resolver
		// would not. Test harnesses set it for fixtures that use those names;
		// unset, *.example and *.test get NXDOMAIN like on a user's machine.
		audit.SandboxOptions{Network: network, Image: c.image, ImageFlavor: c.flavor, TrustFiles: trustFiles(env, c.caFiles),
			AnswerReserved: answerReserved(env)}, Timing: audit.TimingOptions{ClockRate: c.clockRate},
	}
}

const EnvAnswerReserved = "MCP_AUDIT_ANSWER_RESERVED"

// EnvAllCanaries, set to 1, plants every provider canary variable instead
// of the declared ones and a per-run subset of the others. Test harnesses
// set it for fixtures that steal one particular variable; users leave it
// unset, since a server can count the variables.
const EnvAllCanaries = "MCP_AUDIT_ALL_CANARIES"

func allCanaries(env *Env) bool { return env.Getenv(EnvAllCanaries) == "1" }

func answerReserved(env *Env) []string {
	var out []string
	for _, s := range strings.Split(env.Getenv(EnvAnswerReserved), ",") {
		if s = strings.Trim(strings.TrimSpace(s), "."); s != "" {
			out = append(out, s)
		}
	}
	return out
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

func newLogger(env *Env, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if env.StderrIsTerminal {
		level = slog.LevelInfo
	}
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}

// loadConfig loads a configuration; its errors (with file and line) are
// usage errors.
func loadConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(findConfig(path))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	return cfg, nil
}

// parseFlags parses a command that takes flags only.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", verdict.ErrUsage, fs.Arg(0))
	}
	return nil
}

// usageError wraps a flag parsing error as a usage error; -h stays
// flag.ErrHelp, which exits 0. The flag is named as the docs write it,
// --name.
func usageError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %s", verdict.ErrUsage, strings.Replace(err.Error(), " flag -", " flag --", 1))
}

// parseInterleaved parses flags that may come before or after positional
// arguments; everything after "--" is returned separately, untouched.
func parseInterleaved(fs *flag.FlagSet, args []string) (positional, passthrough []string, err error) {
	for i, a := range args {
		if a == "--" {
			passthrough = args[i+1:]
			args = args[:i]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usageError(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, passthrough, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// jobsUsage is the --jobs flag's help: its default depends on the runs
// each audit holds at once (--witness, --differential).
const jobsUsage = "audits in parallel; the default comes from the cores and the memory every sandbox an audit holds at once may use (the traced, witness, calibration and secrets runs)"

// sandboxes is how many sandboxes each audit holds at once with these
// flags.
func (c *commonFlags) sandboxes() int {
	return batch.SandboxesPerAudit(audit.Options{Witness: c.witness, Differential: c.differential})
}
