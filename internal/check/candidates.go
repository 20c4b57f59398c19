package check

import (
	"cmp"
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// candidate is one version to audit.
type candidate struct {
	spec    string // what audit.Run gets
	version string // "" when only known after the audit (local targets)
}

// candidates decides which versions to audit: the pinned version, or the
// newest matching the range; with NewReleases every version newer than
// the baseline.
func (c *checker) candidates(ctx context.Context, s *config.Server, base string) ([]candidate, error) {
	switch eco := s.Spec.Ecosystem(); {
	case !eco.Registry:
		return []candidate{{spec: s.Spec.Path}}, nil
	case eco.AsShipped:
		return c.ociCandidates(ctx, s), nil
	case eco.Python:
		return c.pyCandidates(ctx, s, base)
	}
	if s.Version != "" && !c.opts.NewReleases {
		return []candidate{pinned(s, s.Version)}, nil
	}
	p, err := c.reg.Fetch(ctx, s.Spec.Name)
	if err != nil {
		return nil, err
	}
	if c.opts.NewReleases && base != "" {
		vs, err := p.Newer(base, s.Range, s.Prerelease)
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, v := range vs {
			out = append(out, pinned(s, v))
		}
		return out, nil
	}
	v, err := p.Resolve(cmp.Or(s.Version, s.Range), s.Prerelease)
	if err != nil {
		return nil, err
	}
	return []candidate{pinned(s, v.Version)}, nil
}

// pinned is the candidate of one version of a registry package.
func pinned(s *config.Server, version string) candidate {
	return candidate{spec: s.Spec.Ecosystem().Pin(s.Spec.Name, version), version: version}
}

// pyCandidates is candidates for a pypi: server: the versions come from
// the simple index, in PEP 440 order, with the server's specifier
// (Spec.Range) and pre-release setting.
func (c *checker) pyCandidates(ctx context.Context, s *config.Server, base string) ([]candidate, error) {
	if c.py == nil {
		return nil, fmt.Errorf("no PyPI index configured for %s", s.Spec.Name)
	}
	files, err := c.py.PyPIFiles(ctx, s.Spec.Name)
	if err != nil {
		return nil, err
	}
	if !c.opts.NewReleases || base == "" {
		base = ""
	}
	vs, err := target.PyReleases(files, base, s.Spec.Range, s.Prerelease)
	if err != nil {
		return nil, err
	}
	if base == "" {
		if len(vs) == 0 {
			return nil, fmt.Errorf("%w: no installable version of %s matches %q", verdict.ErrUsage, s.Spec.Name, s.Spec.Range)
		}
		vs = vs[len(vs)-1:] // the newest, as the audit itself resolves it
	}
	var out []candidate
	for _, v := range vs {
		out = append(out, pinned(s, v.String()))
	}
	return out, nil
}
