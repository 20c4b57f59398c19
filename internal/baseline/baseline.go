// Package baseline stores reviewed manifests in the repository as
// baselines/<ecosystem>/<name>/<version>.json (scoped npm names keep their
// @scope/ directory), in canonical encoding so that reviews see clean diffs.
package baseline

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// ErrBadName rejects names that would escape the baseline directory.
var ErrBadName = errors.New("unusable name for a baseline path")

// Path is where a version's baseline lives.
func Path(dir, ecosystem, name, version string) (string, error) {
	if ecosystem == "oci" {
		// An image repository ("host:port/team/server") is one directory,
		// and its versions are digests ("sha256:…").
		name = strings.NewReplacer("/", "_", ":", "_").Replace(name)
	}
	for _, part := range append(strings.Split(name, "/"), ecosystem, version) {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, "\\\x00") {
			return "", fmt.Errorf("%w: %q", ErrBadName, path.Join(ecosystem, name, version))
		}
	}
	if strings.Contains(version, "/") || strings.Contains(ecosystem, "/") ||
		strings.Count(name, "/") > 1 || strings.Contains(name, "/") && !strings.HasPrefix(name, "@") {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	return filepath.Join(dir, ecosystem, filepath.FromSlash(name), version+".json"), nil
}

// Versions lists the baseline versions of a server, oldest first (semver
// order, PEP 440 for pypi; versions that are not versions come first,
// sorted as text).
func Versions(dir, ecosystem, name string) ([]string, error) {
	p, err := Path(dir, ecosystem, name, "x")
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if v, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, target.EcosystemNamed(ecosystem).CompareVersions)
	return out, nil
}

// Newest returns the newest baseline version, or "" when there is none.
func Newest(dir, ecosystem, name string) (string, error) {
	vs, err := Versions(dir, ecosystem, name)
	if err != nil || len(vs) == 0 {
		return "", err
	}
	return vs[len(vs)-1], nil
}

// Load reads a baseline.
func Load(dir, ecosystem, name, version string) (*m.Manifest, error) {
	p, err := Path(dir, ecosystem, name, version)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	man, err := m.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return man, nil
}

// Write stores a manifest as the baseline of its target version and
// returns the path. The run block is dropped: a baseline records
// behavior, and a re-audit of the same version must not change the file.
func Write(dir string, man *m.Manifest) (string, error) {
	p, err := Path(dir, man.Target.Ecosystem, man.Target.Name, man.Target.Version)
	if err != nil {
		return "", err
	}
	c := *man
	c.Run = m.Run{}
	data, err := m.Encode(&c)
	if err != nil {
		return "", err
	}
	return p, fsutil.WriteFileAtomic(p, data)
}
