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
