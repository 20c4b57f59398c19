package audit

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// writableCopy is where a Node package runs from: a writable copy where
// npx puts it (sandbox.NpxWritable); a Python package runs in place.
func writableCopy(pkg *target.Package) (string, *sandbox.Writable, error) {
	if pkg.Python != nil {
		return AppRoot, nil, nil
	}
	wr, err := sandbox.NpxWritable(Home, pkg.Name, AppRoot, pkg.Root)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	return wr.Dst, wr, nil
}

// codeCoverage has the traced run of a Node server write its V8 coverage
// when it exits by itself (the audit closes its stdin first).
func codeCoverage(spec *sandbox.Spec, layout *classify.Layout) {
	spec.CoverageDir = coverageDir
	spec.Env = append(spec.Env, "NODE_V8_COVERAGE="+coverageDir)
	layout.Instruments = []string{coverageDir}
}

// packageLayout is where a package's run keeps what classify tells apart:
// the package under appRoot (its dependencies beside it; a Python
// package's site/ holds them too).
func packageLayout(appRoot string, python bool, pkgRoot string) classify.Layout {
	layout := classify.Layout{Home: Home, Workspace: Workspace, PkgRoot: pkgRoot, AppRoot: appRoot, Runtime: NodeBin}
	if python {
		layout.Runtime = PythonBin
	}
	return layout
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
	home, canaryPaths := homeFiles(cs)
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

// homeFiles are the decoy home and workspace of a canary set, and the
// paths of its canary files.
func homeFiles(cs *canary.Set) (home []sandbox.TarFile, canaryPaths []string) {
	home = append(home, sandbox.TarFile{Path: "workspace", Dir: true, Mode: 0o755},
		// The note a path probe names (internal/argsynth): an ordinary
		// file, never a canary, the same in every run.
		sandbox.TarFile{Path: "workspace/" + strings.TrimPrefix(argsynth.MarkerPath, argsynth.Workspace+"/"), Content: []byte(argsynth.MarkerContent), Mode: 0o644})
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
	return home, canaryPaths
}

// coverageDir is where node writes its V8 coverage in the traced run.
const coverageDir = "/tmp/.node-coverage"

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
		Answer: append(slices.Clone(o.Sandbox.AnswerReserved), canary.PrivateDomain, argsynth.ProbeDomain)}
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
