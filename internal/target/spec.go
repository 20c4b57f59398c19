// Package target turns what the user asked to audit — an npm package, a
// PyPI distribution, a container image, or a local package directory,
// tarball, wheel or sdist — into an installed package tree on the host,
// without running any of the package's code: versions are resolved
// against their registry (semver for npm, PEP 440 for PyPI, tags for
// images), installs run in a throwaway install container behind a
// registry gate, and installs are cached by integrity so a repeat audit
// needs no network. What mcp-audit knows of each kind of target is one
// table (ecosystem.go): other packages ask a spec's Ecosystem.
package target

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// ErrUsage marks a target spec the user must fix.
var ErrUsage = errors.New("invalid target")

// Kinds of targets.
const (
	KindNPM     = "npm"
	KindDir     = "dir"
	KindTarball = "tarball"
)

// Spec is a parsed target.
type Spec struct {
	Kind string
	// Name and Range for npm targets; Range may be a version, a semver
	// range or a dist-tag ("" means latest).
	Name  string
	Range string
	// Path for local targets.
	Path string
	Raw  string
}

// npm package names: optional @scope/, lowercase URL-safe characters.
var reName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// ParseSpec parses "npm:NAME[@RANGE]", "pypi:NAME[@SPECIFIER]", a
// directory, a .tgz file, a wheel or an sdist.
func ParseSpec(s string) (Spec, error) {
	if rest, ok := strings.CutPrefix(s, "npm:"); ok {
		name, rng := rest, ""
		if i := strings.LastIndex(rest, "@"); i > 0 {
			name, rng = rest[:i], rest[i+1:]
		}
		if !reName.MatchString(name) || len(name) > 214 {
			return Spec{}, fmt.Errorf("%w: %q is not an npm package name", ErrUsage, name)
		}
		return Spec{Kind: KindNPM, Name: name, Range: rng, Raw: s}, nil
	}
	if rest, ok := strings.CutPrefix(s, "pypi:"); ok {
		return parsePySpec(s, rest)
	}
	if rest, ok := strings.CutPrefix(s, "oci:"); ok {
		return parseOCI(s, rest)
	}
	st, err := os.Stat(s)
	if k := localPyKind(s, err == nil && st.IsDir()); err == nil && k != "" {
		return Spec{Kind: k, Path: s, Raw: s}, nil
	}
	switch {
	case err == nil && st.IsDir():
		return Spec{Kind: KindDir, Path: s, Raw: s}, nil
	case err == nil && (strings.HasSuffix(s, ".tgz") || strings.HasSuffix(s, ".tar.gz")):
		return Spec{Kind: KindTarball, Path: s, Raw: s}, nil
	case err == nil:
		return Spec{}, fmt.Errorf("%w: %s is a file but not a .tgz package", ErrUsage, s)
	}
	if reName.MatchString(strings.Split(strings.TrimPrefix(s, "@"), "@")[0]) && !strings.ContainsAny(s, "./") || strings.HasPrefix(s, "@") {
		return Spec{}, fmt.Errorf("%w: %q is not a directory or .tgz; for an npm package write npm:%s", ErrUsage, s, s)
	}
	return Spec{}, fmt.Errorf("%w: %s: no such directory or .tgz file", ErrUsage, s)
}
