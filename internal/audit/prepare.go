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
	"github.com/mcp-audit/mcp-audit/internal/supply"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/variant"
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
	// secret and seed (pkg@version) decide what the variant runs vary.
	secret variant.Secret
	seed   string
	// client is the clientInfo the run sends, NAME/VERSION ("": the
	// options').
	client string
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
	appRoot, wr, err := writableCopy(pkg)
	if err != nil {
		return nil, err
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
	layout := packageLayout(appRoot, pkg.Python != nil, pkgRoot)
	secret, seed := d.secret(), pkg.Name+"@"+pkg.Version
	plant := plantChoice(o, secret.Seed(seed, "canaries"))
	cs := canary.GenerateEnv(plant.Env())
	cs.Files = append(slices.Clone(cs.Files), o.Sandbox.Seed...) // seeded, so classify knows them as pre-existing
	man := &m.Manifest{
		SchemaVersion: m.SchemaVersion, Method: m.MethodVersion,
		Target: m.Target{Ecosystem: eco.Name, Name: pkg.Name, Version: pkg.Version, Integrity: pkg.Integrity,
			Entry: layout.NormalizeArgv(argv), Service: pkg.Manifest.ServiceDomains(), Supplied: suppliedHosts(o)},
	}
	supply.Record(ctx, d.Fetcher, pkg, man) // the resolved tree, publish time, advisories (internal/supply)
	man.Run.Tool = buildinfo.Tool()
	man.Run.Image, man.Run.ImageID, man.Run.NetworkMode = o.Sandbox.Image, imageID, o.Sandbox.Network
	profile := variant.PickProfile(secret.Seed(seed, "client"), o.Run)
	clientName, base := profile.Name, profile.Env(variant.Canonical, Workspace)
	man.Run.ClientEnv, man.Run.CanaryEnv = clientName, plant.Env()
	sbSpec := sandboxSpec(o, cs, pkg, argv, pkgRoot, base)
	if !o.NoCodeCoverage && pkg.Python == nil {
		codeCoverage(&sbSpec, &layout)
	}
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
	sbSpec.Net.Fields = sink.ReadFields(pkg.Root, pkg.Dir)
	if !pkg.Temporary() {
		sb := &sandbox.Sandbox{Engine: d.Engine, Log: log}
		img, err := sb.PackageImage(ctx, o.Sandbox.Image, imageID, "v2\x00"+pkg.Integrity+"\x00"+pkg.Dir, sbSpec.Trees)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		sbSpec.Image, sbSpec.Trees = img, nil
	}
	ok = true
	secret.Traced(&sbSpec, seed)
	return &Prepared{Spec: sbSpec, Layout: layout, Canaries: cs, Manifest: man, pkg: pkg, maxTrace: o.Sandbox.MaxTraceBytes, plant: plant,
		secret: secret, seed: seed}, nil
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
