package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// maxMetadata bounds a registry document (large packages have big ones).
const maxMetadata = 128 << 20

// Registry talks to an npm registry.
type Registry struct {
	Config NPMConfig
	HTTP   *http.Client
}

// NewRegistry builds a registry client from npm configuration.
func NewRegistry(cfg NPMConfig) (*Registry, error) {
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, err
	}
	return &Registry{Config: cfg, HTTP: hc}, nil
}

// Version is one published version from the registry.
type Version struct {
	Name             string            `json:"name"`
	Version          string            `json:"version"`
	Bin              json.RawMessage   `json:"bin"`
	Main             string            `json:"main"`
	HasInstallScript bool              `json:"hasInstallScript"`
	Deprecated       string            `json:"deprecated"`
	Dist             Dist              `json:"dist"`
	Scripts          map[string]string `json:"scripts"`
	Dependencies     map[string]string `json:"dependencies"`
}

// Dist locates a version's tarball.
type Dist struct {
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"`
	Shasum    string `json:"shasum"`
}

// Packument is a package's registry document (abbreviated form).
type Packument struct {
	Name     string             `json:"name"`
	DistTags map[string]string  `json:"dist-tags"`
	Versions map[string]Version `json:"versions"`
	// Time maps versions to when they were published (RFC 3339), as the
	// full document gives it; the abbreviated one may leave it out
	// (published.go).
	Time map[string]string `json:"time,omitempty"`
}

// Fetch downloads a package's metadata (the abbreviated document).
func (r *Registry) Fetch(ctx context.Context, name string) (*Packument, error) {
	return r.fetch(ctx, name, "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
}

func (r *Registry) fetch(ctx context.Context, name, accept string) (*Packument, error) {
	base := r.Config.RegistryFor(name)
	u := base + strings.Replace(url.PathEscape(name), "%40", "@", 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	if tok := r.Config.token(u); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := r.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s metadata from the npm registry: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: npm package %s not found in %s", ErrUsage, name, base)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s metadata: registry answered %s", name, resp.Status)
	}
	var p Packument
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("decoding %s metadata: %w", name, err)
	}
	return &p, nil
}

// Resolve picks the version a spec refers to: an exact version, a dist-tag,
// or the highest version satisfying a semver range. Prereleases only match
// when the range names one, or when pre is true.
func (p *Packument) Resolve(rng string, pre bool) (*Version, error) {
	if rng == "" {
		rng = "latest"
	}
	if v, ok := p.Versions[rng]; ok {
		return &v, nil
	}
	if tagged, ok := p.DistTags[rng]; ok {
		if v, ok := p.Versions[tagged]; ok {
			return &v, nil
		}
		return nil, fmt.Errorf("%w: dist-tag %s of %s points at missing version %s", ErrUsage, rng, p.Name, tagged)
	}
	c, err := semver.NewConstraint(rng)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is neither a version, a dist-tag nor a semver range of %s", ErrUsage, rng, p.Name)
	}
	c.IncludePrerelease = pre
	var best *semver.Version
	for s := range p.Versions {
		v, err := semver.StrictNewVersion(s)
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best = v
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w: no version of %s satisfies %s", ErrUsage, p.Name, rng)
	}
	v := p.Versions[best.Original()]
	return &v, nil
}

// Newer lists published versions above base that satisfy rng, oldest
// first. Prereleases are skipped unless pre is set.
func (p *Packument) Newer(base, rng string, pre bool) ([]string, error) {
	b, err := semver.NewVersion(base)
	if err != nil {
		return nil, fmt.Errorf("baseline version %q: %w", base, err)
	}
	var c *semver.Constraints
	if rng != "" && rng != "latest" {
		if c, err = semver.NewConstraint(rng); err != nil {
			return nil, fmt.Errorf("range %q: %w", rng, err)
		}
		c.IncludePrerelease = pre
	}
	var out []*semver.Version
	for s := range p.Versions {
		v, err := semver.StrictNewVersion(s)
		if err != nil || !v.GreaterThan(b) || (!pre && v.Prerelease() != "") || (c != nil && !c.Check(v)) {
			continue
		}
		out = append(out, v)
	}
	sort.Sort(semver.Collection(out))
	strs := make([]string, len(out))
	for i, v := range out {
		strs[i] = v.Original()
	}
	return strs, nil
}
