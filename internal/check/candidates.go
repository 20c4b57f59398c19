package check

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// candidate is one version to audit.
type candidate struct {
	spec    string // what audit.Run gets
	version string // "" when only known after the audit (local targets)
	// published is when the registry says the version was published
	// (zero when it does not say: local targets, images).
	published time.Time
	// recheck marks the baseline's own version, added with --new-releases
	// only to resolve its tree again: a candidate when the tree changed.
	recheck bool
}

// withRecheck adds the baseline's version to --new-releases candidates of
// a registry package whose tree resolves at install time (npm), so the
// scheduled run sees a new tree without a new release (newResolution). A
// plain check has the baseline's version among its candidates already
// when no newer one matches.
func (c *checker) withRecheck(s *config.Server, cands []candidate, base string) []candidate {
	eco := s.Spec.Ecosystem()
	if !c.opts.NewReleases || c.opts.Force || base == "" || !eco.Registry || !eco.Installed {
		return cands
	}
	for _, cand := range cands {
		if cand.version == base {
			return cands
		}
	}
	r := pinned(s, base)
	r.recheck = true
	return append([]candidate{r}, cands...)
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
		// A pinned version needs no registry; its age does, when one is
		// at hand (the audit's fetch reports a registry that fails).
		cand := pinned(s, s.Version)
		if c.reg != nil {
			if p, err := c.reg.Fetch(ctx, s.Spec.Name); err == nil {
				cand = c.dated(ctx, p, s, s.Version)
			}
		}
		return []candidate{cand}, nil
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
			out = append(out, c.dated(ctx, p, s, v))
		}
		return out, nil
	}
	v, err := p.Resolve(cmp.Or(s.Version, s.Range), s.Prerelease)
	if err != nil {
		return nil, err
	}
	return []candidate{c.dated(ctx, p, s, v.Version)}, nil
}

// dated is the candidate of one npm version, with its publish time.
func (c *checker) dated(ctx context.Context, p *target.Packument, s *config.Server, version string) candidate {
	cand := pinned(s, version)
	cand.published = c.published(ctx, p, s.Spec.Name, version)
	return cand
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
		cand := pinned(s, v.String())
		cand.published = target.PyUploaded(files, v.String())
		out = append(out, cand)
	}
	return out, nil
}
