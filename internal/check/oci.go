package check

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// TagLister lists an image repository's tags (target.ImageTags); tests
// pass a fake.
type TagLister func(ctx context.Context, repo string) ([]string, error)

func defaultTags(ctx context.Context, repo string) ([]string, error) {
	return target.ImageTags(ctx, nil, repo)
}

// newerImageTags are the tags of an OCI server's repository that are
// semantic versions newer than its configured tag. A digest-pinned
// reference, a reference without a registry host, or an unreachable
// registry has none (the last is logged).
func (c *checker) newerImageTags(ctx context.Context, s *config.Server) []string {
	tag := s.Spec.Range
	if tag == "" || strings.HasPrefix(tag, "sha256:") {
		return nil
	}
	list := c.tags
	if list == nil {
		list = defaultTags
	}
	tags, err := list(ctx, s.Spec.Name)
	if err != nil {
		if !errors.Is(err, target.ErrNoRegistry) {
			c.log.Warn("image tags not listed", "server", s.Name, "err", err)
		}
		return nil
	}
	return target.NewerTags(tags, tag, s.Prerelease)
}

// ociCandidates: the configured reference (a tag may point at a new
// digest) and, with NewReleases, every newer version tag.
func (c *checker) ociCandidates(ctx context.Context, s *config.Server) []candidate {
	out := []candidate{{spec: s.Spec.Path}}
	if !c.opts.NewReleases {
		return out
	}
	for _, t := range c.newerImageTags(ctx, s) {
		out = append(out, candidate{spec: s.Spec.Ecosystem().Pin(s.Spec.Name, t)})
	}
	return out
}

// discoverImage lists an OCI server's newer version tags as releases.
func (c *checker) discoverImage(ctx context.Context, s *config.Server) ([]Release, error) {
	eco, name := s.Spec.BaselineKey()
	base, err := baseline.Newest(c.cfg.BaselineDir(), eco, name)
	if err != nil {
		return nil, err
	}
	var out []Release
	for _, t := range c.newerImageTags(ctx, s) {
		out = append(out, Release{Server: s.Name, Package: s.Spec.Name, Version: t, Baseline: base})
	}
	return out, nil
}
