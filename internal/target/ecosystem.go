package target

import (
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Ecosystem is what mcp-audit knows of one kind of target, in one place
// (package-analysis's ecosystem table): how its spec is written, whether a
// registry has its releases, what the manifest and the baselines record it
// under, and how the sandbox lays it out. Code outside this package asks a
// spec's Ecosystem instead of testing its kind.
type Ecosystem struct {
	// Name is the manifest's target.ecosystem and the baselines'
	// directory: npm, pypi, oci or local.
	Name string
	// Kinds are the Spec.Kind values of the ecosystem.
	Kinds []string
	// Prefix starts its specs ("npm:"); "" for a path on this machine.
	Prefix string
	// Registry: its versions come from a registry, so a check can look for
	// new releases and a baseline is kept per version.
	Registry bool
	// VersionKeys: mcp-audit.yml's version: and range: apply (npm).
	VersionKeys bool
	// Installed: the registry install fills the sandbox's app root with
	// the package and its dependencies (npm); a local package carries its
	// own tree and is the project its install scripts run in.
	Installed bool
	// Python: a Python distribution (console scripts, site directory).
	Python bool
	// AsShipped: a container image run with its own entrypoint.
	AsShipped bool
	// Local: a path on this machine whose content the Action hashes to
	// see a change; LocalDir: a directory (watched recursively).
	Local, LocalDir bool
	// Builds: installing it runs its own build code (an sdist, a source
	// directory), so its install scripts cannot be skipped.
	Builds bool

	// RegistryTypes are the MCP registry's server.json registryType
	// values of the ecosystem.
	RegistryTypes []string

	pin       func(name, version string) string
	normalize func(name string) string
	compare   func(a, b string) int
}

var ecosystems = []*Ecosystem{
	{Name: "npm", Kinds: []string{KindNPM}, Prefix: "npm:", Registry: true, VersionKeys: true, Installed: true, RegistryTypes: []string{"npm"},
		pin: func(n, v string) string { return "npm:" + n + "@" + v }, compare: compareSemver},
	{Name: "pypi", Kinds: []string{KindPyPI}, Prefix: "pypi:", Registry: true, Python: true, RegistryTypes: []string{"pypi"},
		pin: func(n, v string) string { return "pypi:" + n + "@==" + v }, normalize: NormalizePyName, compare: ComparePyVersions},
	{Name: "oci", Kinds: []string{KindOCI}, Prefix: "oci:", Registry: true, AsShipped: true, RegistryTypes: []string{"oci", "docker"},
		pin: func(n, v string) string {
			if strings.HasPrefix(v, "sha256:") {
				return "oci:" + n + "@" + v
			}
			return "oci:" + n + ":" + v
		}, compare: compareSemver},
	{Name: "local", Kinds: []string{KindDir}, Local: true, LocalDir: true, compare: compareSemver},
	{Name: "local", Kinds: []string{KindTarball}, Local: true, compare: compareSemver},
	{Name: "local", Kinds: []string{KindWheel}, Local: true, Python: true, compare: compareSemver},
	{Name: "local", Kinds: []string{KindSdist}, Local: true, Python: true, Builds: true, compare: compareSemver},
	{Name: "local", Kinds: []string{KindPyDir}, Local: true, LocalDir: true, Python: true, Builds: true, compare: compareSemver},
}

// unknown is the ecosystem of a spec of no known kind (the zero Spec).
var unknown = &Ecosystem{Name: "local", compare: compareSemver}

// Ecosystem is the spec's ecosystem.
func (s Spec) Ecosystem() *Ecosystem {
	for _, e := range ecosystems {
		if slices.Contains(e.Kinds, s.Kind) {
			return e
		}
	}
	return unknown
}

// EcosystemNamed is the registry ecosystem of a manifest's or baseline's
// ecosystem name; local (and unknown) names get the local one.
func EcosystemNamed(name string) *Ecosystem {
	for _, e := range ecosystems {
		if e.Name == name {
			return e
		}
	}
	return unknown
}

// Pin is the spec of one version of a registry package ("npm:x@1.2.3",
// "pypi:x@==1.2.3", "oci:x:1.2.3" or "oci:x@sha256:…"); "" for a local
// ecosystem.
func (e *Ecosystem) Pin(name, version string) string {
	if e.pin == nil {
		return ""
	}
	return e.pin(name, version)
}

// BaselineName is the name a package's baselines and manifests are
// recorded under (PEP 503's normalized name for PyPI).
func (e *Ecosystem) BaselineName(name string) string {
	if e.normalize == nil {
		return name
	}
	return e.normalize(name)
}

// CompareVersions orders two versions of the ecosystem (PEP 440 for PyPI,
// semantic versions, then text, for the others).
func (e *Ecosystem) CompareVersions(a, b string) int { return e.compare(a, b) }

// BaselineKey is where a spec's baselines live: its ecosystem's name and
// the name the manifest records.
func (s Spec) BaselineKey() (eco, name string) {
	e := s.Ecosystem()
	return e.Name, e.BaselineName(s.Name)
}

// compareSemver orders semantic versions, those that parse first, then
// the rest as text.
func compareSemver(a, b string) int {
	va, ea := semver.NewVersion(a)
	vb, eb := semver.NewVersion(b)
	switch {
	case ea == nil && eb == nil:
		return va.Compare(vb)
	case ea == nil:
		return 1
	case eb == nil:
		return -1
	}
	return strings.Compare(a, b)
}

// IsRegistrySpec reports whether s names a registry package ("npm:…",
// "pypi:…", "oci:…") rather than a path.
func IsRegistrySpec(s string) bool {
	for _, e := range ecosystems {
		if e.Prefix != "" && strings.HasPrefix(s, e.Prefix) {
			return true
		}
	}
	return false
}

// Spec is the spec of a registry package at no particular version
// ("npm:x"); "" for a local ecosystem.
func (e *Ecosystem) Spec(name string) string {
	if e.Prefix == "" {
		return ""
	}
	return e.Prefix + name
}

// EcosystemOfRegistryType is the ecosystem of a server.json package's
// registryType ("npm", "pypi", "oci", earlier drafts' "docker"), nil for
// one mcp-audit cannot audit.
func EcosystemOfRegistryType(typ string) *Ecosystem {
	for _, e := range ecosystems {
		if slices.Contains(e.RegistryTypes, strings.ToLower(typ)) {
			return e
		}
	}
	return nil
}

// SpecAt is the spec of a registry package under a version constraint as
// its ecosystem writes one — "npm:x@^1.2", "pypi:x@>=1,<2", "oci:x:tag"
// or "oci:x@sha256:…" — or at no particular version when constraint is
// "". "" for a local ecosystem.
func (e *Ecosystem) SpecAt(name, constraint string) string {
	switch {
	case e.Prefix == "":
		return ""
	case constraint == "":
		return e.Prefix + name
	case e.AsShipped:
		return e.Pin(name, constraint)
	}
	return e.Prefix + name + "@" + constraint
}
