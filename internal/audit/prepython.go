package audit

import (
	"fmt"
	"os"
	"path"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// pythonEntry picks the console script (site/bin/NAME) the server starts
// with. A wheel's scripts are installed already; an sdist's appear when
// the install phase has built it.
func pythonEntry(o Options, pkg *target.Package) (string, error) {
	rel, err := pkg.Manifest.Entry(o.Bin)
	if err != nil {
		return "", err
	}
	if pkg.Python.Build == "" {
		if _, err := os.Stat(path.Join(pkg.Root, pkg.Dir, rel)); err != nil {
			return "", fmt.Errorf("%w: console script %s not installed by %s", target.ErrUsage, rel, pkg.Name)
		}
	}
	return rel, nil
}

// sdistScripts refuses --scripts skip for a Python target that must be
// built: an sdist or a source directory cannot be installed without
// running its build backend (setup.py is the project's own code), so
// skipping "install scripts" would be a silent lie. pkg is nil before the
// fetch (the ecosystem decides) and set after it (a pypi: target resolved to an
// sdist).
func sdistScripts(o Options, eco *target.Ecosystem, pkg *target.Package) error {
	if o.Scripts != ScriptsSkip {
		return nil
	}
	build := eco.Builds
	if pkg != nil {
		build = pkg.Python != nil && pkg.Python.Build != ""
	}
	if !build {
		return nil
	}
	return fmt.Errorf("%w: --scripts skip cannot apply to %s: a source distribution is installed only by building it, "+
		"which runs the project's own build code (setup.py or its build backend); audit a wheel instead, or drop --scripts skip "+
		"to have the build traced in the install phase", target.ErrUsage, o.Target)
}

// pythonSpec makes the installed packages importable and, for an sdist or
// a source directory, builds and installs it in the install phase, traced
// like npm's lifecycle scripts: pip runs offline from the wheels the
// install container downloaded, and the build backend (setup.py and the
// like) is package code.
func pythonSpec(spec *sandbox.Spec, pkg *target.Package, man *m.Manifest, timeout time.Duration) {
	site := path.Join(AppRoot, target.PySite)
	spec.Env = append(spec.Env, "PYTHONPATH="+site)
	if pkg.Python.Build == "" {
		return
	}
	wheels := path.Join(AppRoot, target.PyWheels)
	const build = "/tmp/.mcp-audit-build"
	pip := "python3 -m pip install --isolated --no-index --no-cache-dir --disable-pip-version-check --no-input --find-links " + wheels
	script := "if grep -q . " + path.Join(AppRoot, target.PyBuildReqs) + "; then " + pip + " --target " + build +
		" -r " + path.Join(AppRoot, target.PyBuildReqs) + " || exit $?; fi\n" +
		"PYTHONPATH=" + build + " " + pip + " --no-build-isolation --target " + site + " " + path.Join(AppRoot, pkg.Python.Build) + "\n" +
		// Not the last command, so the shell forks pip (see installSpec).
		"exit $?"
	spec.Install = &sandbox.Install{Dir: AppRoot, Script: script, GID: BuildGID, Timeout: timeout}
	man.Run.Notes = append(man.Run.Notes, "the source distribution is built and installed in phase install")
}
