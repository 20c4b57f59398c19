package check

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/supply"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// maxDated bounds the registry documents a new resolution's age costs:
// the packages whose versions it changed.
const maxDated = 32

// newResolution re-resolves the tree of the baselined version, as a user
// installing it today would (npm packages ship no lockfile: the axios
// 1.14.1 case reached users without a release of the servers that
// depended on it). A tree that differs from the baseline's is a candidate
// of its own: audited and compared like a release, or too new when a
// package it now resolves to is younger than the minimum release age.
// Nil, with a note when something failed, when the tree is the
// baseline's or cannot be re-resolved.
func (c *checker) newResolution(ctx context.Context, s *config.Server, cand candidate, base *m.Manifest, dir string) (*report.DiffReport, string) {
	if eco := s.Spec.Ecosystem(); base.Dependencies == nil || !eco.Registry || !eco.Installed {
		return nil, ""
	}
	tree, err := c.resolve(ctx, cand.spec)
	if err != nil {
		return nil, fmt.Sprintf("the tree of %s could not be resolved again: %s", cand.version, textsafe.Line(err.Error(), 300))
	}
	changes := deptree.Compare(base.Dependencies, tree)
	if len(changes) == 0 {
		return nil, ""
	}
	dep, published := c.youngest(ctx, base.Dependencies, tree)
	if r := c.tooNew(s, cand, cand.version, dep, published); r != nil {
		return r, ""
	}
	r := c.auditAndCompare(ctx, s, cand, dir)
	r.Notes = append(r.Notes, fmt.Sprintf("no new release: the tree of %s resolves differently now (%d change(s) in its dependencies), so it was audited as a candidate of its own",
		cand.version, len(changes)))
	return &r, ""
}

// resolve installs a registry version afresh and reads its tree.
func (c *checker) resolve(ctx context.Context, spec string) (*deptree.Tree, error) {
	if c.opts.Resolve != nil {
		return c.opts.Resolve(ctx, spec)
	}
	if c.deps.Fetcher == nil {
		return nil, errors.New("no fetcher")
	}
	sp, err := target.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	pkg, err := c.deps.Fetcher.Refresh(ctx, sp)
	if err != nil {
		return nil, err
	}
	t, note := supply.Tree(pkg)
	if t == nil {
		return nil, errors.New(note)
	}
	return t, nil
}

// youngest is the most recently published of the npm packages tree has
// and old has not at that version, with its publish time (zero when the
// registry says for none, or there is no registry).
func (c *checker) youngest(ctx context.Context, old, tree *deptree.Tree) (string, time.Time) {
	had := map[string]bool{}
	for _, p := range old.NPM {
		had[p.Name+"@"+p.Version] = true
	}
	var who string
	var when time.Time
	asked := 0
	for _, p := range tree.NPM {
		id := p.Name + "@" + p.Version
		if had[id] || p.Link || p.Integrity == "" || c.reg == nil {
			continue
		}
		had[id] = true
		if asked++; asked > maxDated {
			c.log.Warn("a new resolution changed more packages than their ages are read for", "limit", maxDated)
			break
		}
		doc, err := c.reg.Fetch(ctx, p.Name)
		if err != nil {
			continue
		}
		if t := c.published(ctx, doc, p.Name, p.Version); t.After(when) {
			who, when = id, t
		}
	}
	return who, when
}

// registryEntry records in man what the MCP registry says of a server
// given by server_json: asked at the configuration's mcp_registry, or
// else as the file records it. A failed request is a note.
func (c *checker) registryEntry(ctx context.Context, s *config.Server, man *m.Manifest) []string {
	e := s.Registry
	if e.Name == "" {
		return nil
	}
	if c.cfg.MCPRegistry != "" {
		got, err := supply.RegistryStatus(ctx, c.opts.RegistryHTTP, c.cfg.MCPRegistry, e.Name, e.Version)
		if err == nil {
			man.Target.MCPRegistry = got
			return nil
		}
		if e.Status == "" {
			return []string{"the MCP registry's entry was not read: " + textsafe.Line(err.Error(), 300)}
		}
	}
	if e.Status != "" {
		man.Target.MCPRegistry = &m.MCPRegistryEntry{Name: textsafe.Line(e.Name, 200), Version: textsafe.Line(e.Version, 100), Status: e.Status, Source: "server.json"}
	}
	return nil
}

// advisor is the option's, else the fetcher (through the install gate).
func (c *checker) advisor() supply.Advisor {
	switch {
	case c.opts.Advisor != nil:
		return c.opts.Advisor
	case c.deps.Fetcher != nil && c.deps.Fetcher.Registry != nil:
		return c.deps.Fetcher
	}
	return nil
}

// compareAdvisories matches both sides against one answer, so a release
// is credited only with what it changed (supply.Compare).
func (c *checker) compareAdvisories(ctx context.Context, old, new *m.Manifest) []string {
	adv := c.advisor()
	if adv == nil {
		return nil
	}
	if err := supply.Compare(ctx, adv, old, new); err != nil {
		return []string{"the advisories were not asked again for both versions; each is compared as its audit recorded them: " + textsafe.Line(err.Error(), 300)}
	}
	return nil
}
