package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// Prepared is everything needed to start the server in the sandbox.
type Prepared struct {
	Spec     sandbox.Spec
	Layout   classify.Layout
	Canaries *canary.Set
	// Manifest is filled with the target and run metadata; execution adds
	// outcome and behavior.
	Manifest *m.Manifest
	pkg      *target.Package
	maxTrace int64
	// plant is which canary variables this run plants; the witness run
	// plants its own choice (forWitness).
	plant canary.Choice
}

// Close removes temporary files of the preparation.
func (p *Prepared) Close() { p.pkg.Cleanup() }

// Prepare fetches the target (no package code runs on the host), makes
// sure the sandbox and package images exist, generates canaries and builds
// the sandbox spec.
func Prepare(ctx context.Context, d Deps, o Options) (*Prepared, error) {
	o.defaults()
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	log := d.Log
	spec, httpEP, err := checkOptions(o)
	if err != nil {
		return nil, err
	}
	eco := spec.Ecosystem()
	if eco.AsShipped {
		return prepareOCI(ctx, d, o, spec, httpEP)
	}
	t0 := time.Now()
	pkg, err := d.Fetcher.Fetch(ctx, spec)
	if err != nil {
		if errors.Is(err, target.ErrUsage) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: fetching %s: %v", ErrRuntime, o.Target, err)
	}
	if err := sdistScripts(o, eco, pkg); err != nil {
		pkg.Cleanup()
		return nil, err
	}
	log.Debug("fetched", "cached", pkg.Cached, "ms", time.Since(t0).Milliseconds())
	ok := false
	defer func() {
		if !ok {
			pkg.Cleanup()
		}
	}()
	// A Node package runs from a writable copy where npx puts it.
	appRoot, wr := AppRoot, (*sandbox.Writable)(nil)
	if pkg.Python == nil {
		if wr, err = sandbox.NpxWritable(Home, pkg.Name, AppRoot, pkg.Root); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		appRoot = wr.Dst
	}
	pkgRoot := path.Join(appRoot, pkg.Dir)
	argv, err := entry(o, pkg, pkgRoot)
	if err != nil {
		return nil, err
	}
	imageID, err := sandbox.EnsureImage(ctx, d.Engine, sandbox.ImageOptions{Ref: o.Sandbox.Image, Flavor: o.Sandbox.ImageFlavor, Log: logWriter{log}})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	if n, err := sandbox.GC(ctx, d.Engine); err == nil && n > 0 {
		log.Info("removed sandbox containers left by earlier runs", "count", n)
	}
	layout := classify.Layout{Home: Home, Workspace: Workspace, PkgRoot: pkgRoot, AppRoot: appRoot, Runtime: NodeBin}
	if pkg.Python != nil {
		layout.Runtime = PythonBin // site/ holds the dependencies too
	}
	plant := plantChoice(o, pkg.Name+"@"+pkg.Version)
	cs := canary.GenerateEnv(plant.Env())
	man := &m.Manifest{
		SchemaVersion: m.SchemaVersion,
		Target: m.Target{Ecosystem: eco.Name, Name: pkg.Name, Version: pkg.Version, Integrity: pkg.Integrity,
			Entry: normalizeArgv(layout, argv), Service: pkg.Manifest.ServiceDomains(), Supplied: suppliedHosts(o)},
	}
	man.Run.Tool = buildinfo.Tool()
	man.Run.Image, man.Run.ImageID, man.Run.NetworkMode = o.Sandbox.Image, imageID, o.Sandbox.Network
	clientName, base := pickClientEnv(pkg.Name+"@"+pkg.Version, o.Run)
	man.Run.ClientEnv, man.Run.CanaryEnv = clientName, plant.Env()
	sbSpec := sandboxSpec(o, cs, pkg, argv, pkgRoot, base)
	if pkg.Python != nil {
		pythonSpec(&sbSpec, pkg, man, o.Timing.InstallTimeout)
	}
	browser := sandbox.BrowserFor(pkg.Root, pkg.Dir)
	sbSpec.HTTP, sbSpec.Writable, sbSpec.Env, sbSpec.Playwright = httpEP, wr, browser.WithEnv(sbSpec.Env), browser.Playwright
	markTransport(man, httpEP)
	if scripts := pkg.InstallScripts(); len(scripts) > 0 {
		if o.Scripts == ScriptsSkip {
			man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("install scripts of %d package(s) were not run (--scripts skip)", len(scripts)))
		} else {
			sbSpec.Install = installSpec(spec, appRoot, pkgRoot, o.Timing.InstallTimeout)
			man.Run.Notes = append(man.Run.Notes, "install scripts run in phase install: "+strings.Join(scripts, ", "))
		}
	}
	if err := networkSpec(o, &sbSpec, imageID); err != nil {
		return nil, err
	}
	if !pkg.Temporary() {
		sb := &sandbox.Sandbox{Engine: d.Engine, Log: log}
		img, err := sb.PackageImage(ctx, o.Sandbox.Image, imageID, "v2\x00"+pkg.Integrity+"\x00"+pkg.Dir, sbSpec.Trees)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		sbSpec.Image, sbSpec.Trees = img, nil
	}
	ok = true
	return &Prepared{Spec: sbSpec, Layout: layout, Canaries: cs, Manifest: man, pkg: pkg, maxTrace: o.Sandbox.MaxTraceBytes, plant: plant}, nil
}

// checkOptions rejects options that cannot work, before anything is
// fetched: it returns the parsed target and the HTTP endpoint, if any.
func checkOptions(o Options) (target.Spec, *sandbox.HTTPEndpoint, error) {
	switch o.Sandbox.Network {
	case sandbox.NetNone, sandbox.NetSinkhole, sandbox.NetOpen:
	default:
		return target.Spec{}, nil, fmt.Errorf("%w: unknown network mode %q (want sinkhole, none or open)", target.ErrUsage, o.Sandbox.Network)
	}
	spec, err := target.ParseSpec(o.Target)
	if err != nil {
		return target.Spec{}, nil, err
	}
	if err := sdistScripts(o, spec.Ecosystem(), nil); err != nil {
		return target.Spec{}, nil, err
	}
	httpEP, err := httpEndpoint(o)
	if err != nil {
		return target.Spec{}, nil, err
	}
	return spec, httpEP, nil
}

// entry builds the server's argv inside the sandbox.
func entry(o Options, pkg *target.Package, pkgRoot string) ([]string, error) {
	var argv []string
	if len(o.Command) > 0 {
		argv = append(argv, o.Command...)
	} else if pkg.Python != nil {
		rel, err := pythonEntry(o, pkg)
		if err != nil {
			return nil, err
		}
		argv = []string{PythonBin, path.Join(pkgRoot, rel)}
	} else {
		rel, err := pkg.Manifest.Entry(o.Bin)
		if err != nil {
			return nil, err
		}
		hostFile := path.Join(pkg.Root, pkg.Dir, rel)
		if _, err := os.Stat(hostFile); err != nil {
			return nil, fmt.Errorf("%w: entry %s not found in %s", target.ErrUsage, rel, pkg.Name)
		}
		argv = append(target.Interpreter(hostFile), path.Join(pkgRoot, rel))
	}
	for _, a := range o.Args {
		argv = append(argv, expand(a))
	}
	return argv, nil
}

// expand replaces {workspace} and {home} with the sandbox's paths.
func expand(s string) string {
	s = strings.ReplaceAll(s, "{workspace}", Workspace)
	return strings.ReplaceAll(s, "{home}", Home)
}

func normalizeArgv(l classify.Layout, argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = l.Normalize(a)
	}
	return out
}

// sandboxSpec describes the server's container. base is the environment
// a client gives the server (see clientEnv); the canaries and --env come
// after it.
func sandboxSpec(o Options, cs *canary.Set, pkg *target.Package, argv []string, pkgRoot string, base []string) sandbox.Spec {
	env := slices.Clone(base)
	env = append(env, cs.EnvList()...)
	for _, e := range o.Env {
		env = append(env, expand(e))
	}
	var home []sandbox.TarFile
	var canaryPaths []string
	home = append(home, sandbox.TarFile{Path: "workspace", Dir: true, Mode: 0o755})
	for _, f := range cs.Files {
		rel := strings.TrimPrefix(f.Path, "~/")
		if r, ok := strings.CutPrefix(f.Path, "<workspace>/"); ok {
			rel = "workspace/" + r
		}
		home = append(home, sandbox.TarFile{Path: rel, Content: f.Content, Mode: f.Mode})
		if f.Canary {
			canaryPaths = append(canaryPaths, path.Join(Home, rel))
		}
	}
	workdir := Workspace
	if len(o.Command) > 0 {
		workdir = pkgRoot
	}
	lim := o.Sandbox.Limits
	lim.Deadline = o.Timing.Deadline + 30*time.Second
	return sandbox.Spec{
		Image: o.Sandbox.Image, User: User, UID: UID, Home: Home, Workdir: workdir,
		Cmd: argv, Env: env, HomeFiles: home, CanaryFiles: canaryPaths, ScanDir: Workspace,
		Trees:  []sandbox.Tree{{Src: pkg.Root, Dst: AppRoot, GID: BuildGID, GroupWrite: true}},
		Resolv: "nameserver " + resolver + "\noptions timeout:1 attempts:1\n",
		Limits: lim, ClockRate: o.Timing.ClockRate,
	}
}

// BuildGID is the group the install phase runs as. It may write the
// package tree; the server (group dev) may not.
const BuildGID = 1001

// installSpec runs the lifecycle scripts: npm rebuild runs those of every
// installed dependency (the audited package is one, for registry
// targets); a local package's own scripts run with npm run.
func installSpec(spec target.Spec, appRoot, pkgRoot string, timeout time.Duration) *sandbox.Install {
	// npm itself must not touch the decoys or the network: no user config
	// (it would read the ~/.npmrc canary and send its token), no update
	// check, cache and logs under /tmp. Scripts still see the real HOME.
	const script = "export npm_config_userconfig=/dev/null npm_config_update_notifier=false " +
		"npm_config_cache=/tmp/.npm-cache npm_config_logs_dir=/tmp/.npm-logs npm_config_audit=false npm_config_fund=false\n" +
		"npm rebuild --foreground-scripts --loglevel=error\n" +
		// Not the last command, so the shell forks npm rather than exec'ing
		// it: the shell is the plumbing root, npm its child, and every
		// lifecycle script a grandchild (package code, always listed).
		"exit $?"
	dir := pkgRoot // a local package is the project: rebuild runs its own scripts too
	if spec.Ecosystem().Installed {
		dir = appRoot
	}
	return &sandbox.Install{Dir: dir, Script: script, GID: BuildGID, Timeout: timeout}
}

// networkSpec configures the sandbox network: a per-run interception CA
// for the sinkhole, the host's extra CAs for open mode.
func networkSpec(o Options, spec *sandbox.Spec, imageID string) error {
	spec.Net = sandbox.Network{Mode: o.Sandbox.Network, Responses: o.Sandbox.Responses, BaseImageID: imageID, Upstream: o.Sandbox.UpstreamDNS,
		Answer: append(slices.Clone(o.Sandbox.AnswerReserved), canary.PrivateDomain)}
	switch o.Sandbox.Network {
	case sandbox.NetSinkhole:
		cert, key, err := sink.NewCA()
		if err != nil {
			return fmt.Errorf("%w: creating interception CA: %v", ErrRuntime, err)
		}
		spec.Net.CACert, spec.Net.CAKey = cert, key
		spec.Resolv = "nameserver " + resolver + "\noptions timeout:2 attempts:2\n"
	case sandbox.NetOpen:
		var pem []byte
		for _, f := range o.Sandbox.TrustFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("%w: reading CA bundle %s: %v", target.ErrUsage, f, err)
			}
			pem = append(append(pem, b...), '\n')
		}
		spec.Net.TrustPEM = pem
		spec.Resolv = "nameserver " + resolver + "\noptions timeout:2 attempts:2\n"
	}
	return nil
}

type logWriter struct{ l *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		w.l.Debug(s)
	}
	return len(p), nil
}

// suppliedHosts are the hosts the configuration hands the server, in its
// arguments and in the values of --env variables (URLs, DSNs, host:port).
func suppliedHosts(o Options) []string {
	var out []string
	for _, a := range o.Args {
		out = append(out, hosts.Extract(a)...)
	}
	for _, kv := range o.Env {
		_, v, _ := strings.Cut(kv, "=")
		out = append(out, hosts.Extract(v)...)
	}
	return out
}
