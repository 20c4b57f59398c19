package check

import (
	"cmp"
	"context"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/target"
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
	if s.Spec.Kind == target.KindOCI {
		return c.ociCandidates(ctx, s), nil
	}
	if s.Spec.Kind != target.KindNPM {
		return []candidate{{spec: s.Spec.Path}}, nil
	}
	if s.Version != "" && !c.opts.NewReleases {
		return []candidate{npmCandidate(s, s.Version)}, nil
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
			out = append(out, npmCandidate(s, v))
		}
		return out, nil
	}
	v, err := p.Resolve(cmp.Or(s.Version, s.Range), s.Prerelease)
	if err != nil {
		return nil, err
	}
	return []candidate{npmCandidate(s, v.Version)}, nil
}

func npmCandidate(s *config.Server, version string) candidate {
	return candidate{spec: "npm:" + s.Spec.Name + "@" + version, version: version}
}
