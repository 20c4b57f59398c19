package check

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
)

// Release is a published version newer than a server's baseline.
type Release struct {
	Server   string
	Package  string
	Version  string
	Baseline string // "" when the server has none
}

// Discover lists the npm and PyPI releases of the selected servers that
// are newer than their baselines (or, without a baseline, the version a
// check would audit). It asks only the registry and the simple index: no
// engine is needed. On error the releases found so far come back with it.
func Discover(ctx context.Context, reg Registry, py PyIndex, cfg *config.Config, servers []string) ([]Release, error) {
	c := newChecker(cfg, audit.Deps{}, Options{NewReleases: true})
	c.reg, c.py = reg, py
	selected, err := c.selected(servers)
	if err != nil {
		return nil, err
	}
	var out []Release
	for _, s := range selected {
		eco := s.Spec.Ecosystem()
		if eco.AsShipped {
			rels, err := c.discoverImage(ctx, s)
			if err != nil {
				return out, err
			}
			out = append(out, rels...)
			continue
		}
		if !eco.Registry {
			continue
		}
		ecoName, name := baselineKey(s)
		base, err := baseline.Newest(cfg.BaselineDir(), ecoName, name)
		if err != nil {
			return out, err
		}
		cands, err := c.candidates(ctx, s, base)
		if err != nil {
			return out, fmt.Errorf("%w: %s: %v", audit.ErrRuntime, s.Name, err)
		}
		for _, cand := range cands {
			if cand.version != base {
				out = append(out, Release{Server: s.Name, Package: s.Spec.Name, Version: cand.version, Baseline: base})
			}
		}
	}
	return out, nil
}
