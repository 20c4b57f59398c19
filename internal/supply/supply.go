// Package supply records what the supply chain says of an audited
// target — its resolved dependency tree (internal/deptree), when the
// registry says the version was published, its deprecation, and the
// published advisories that cover its tree — into the manifest. The
// audit calls Record once after the fetch; check calls Advisories again
// for both sides of a comparison and asks an MCP registry for a server's
// entry (mcpregistry.go).
//
// The tree is read on the host from the install the install container
// produced: hostile data, which deptree reads bounded and never through
// a link. No package code runs here.
package supply

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Advisor asks a registry's bulk advisory endpoint; target.Fetcher does,
// through the install gate.
type Advisor interface {
	Advisories(ctx context.Context, q map[string][]string) (map[string][]deptree.Advisory, error)
}

// Bounds of what the manifest keeps.
const (
	maxDeprecation = 512
	// MaxVulnerable bounds the vulnerable versions a manifest lists; the
	// rest are counted in a note.
	MaxVulnerable = 1000
)

// Record fills man with what the supply chain says of pkg: the publish
// time and deprecation the registry gave, the resolved tree, and the
// advisories that cover the tree (asked through adv; nil asks nothing).
// What cannot be read is a note, never an error: the audit goes on.
func Record(ctx context.Context, adv Advisor, pkg *target.Package, man *m.Manifest) {
	if !pkg.Published.IsZero() {
		man.Target.Published = pkg.Published.UTC().Format(time.RFC3339)
	}
	man.Target.Deprecated = textsafe.Line(pkg.Deprecated, maxDeprecation)
	tree, note := Tree(pkg)
	if note != "" {
		man.Run.Notes = append(man.Run.Notes, note)
	}
	man.Dependencies = tree
	if adv == nil || tree == nil {
		return
	}
	rep, err := Advisories(ctx, adv, tree)
	switch {
	case err != nil:
		man.Run.Notes = append(man.Run.Notes, "known-vulnerable versions not checked: "+textsafe.Line(err.Error(), 300))
	case rep != nil:
		setAdvisories(man, rep)
	}
}

// Tree reads the resolved tree of an installed package: npm's
// node_modules under its root, or a Python target's site directory. A
// source distribution is built in the sandbox's install phase, so its
// tree is not on the host: nil, with a note saying so.
func Tree(pkg *target.Package) (*deptree.Tree, string) {
	var (
		t   *deptree.Tree
		err error
	)
	switch {
	case pkg.Python != nil && pkg.Python.Build != "":
		return nil, "the dependency tree of a source distribution is built in the sandbox's install phase and is not recorded"
	case pkg.Python != nil:
		t, err = deptree.ReadPython(filepath.Join(pkg.Root, pkg.Dir))
	default:
		t, err = deptree.ReadNPM(pkg.Root, deptree.ReadOptions{})
	}
	if err != nil {
		return nil, "the dependency tree could not be read: " + textsafe.Line(err.Error(), 300)
	}
	return t, ""
}

// Advisories matches t against the advisories adv lists for its
// registry packages: those npm fetched from a registry (the lockfile
// records their integrity), never a local package or link, so nothing is
// asked about a tree that did not come from the registry. Nil, without an
// error, when there is nothing to ask.
func Advisories(ctx context.Context, adv Advisor, t *deptree.Tree) (*deptree.AdvisoryReport, error) {
	advs, err := ask(ctx, adv, t)
	if err != nil || advs == nil {
		return nil, err
	}
	rep := deptree.Match(fromRegistry(t), advs)
	return &rep, nil
}

// fromRegistry is one tree of the registry packages of trees.
func fromRegistry(trees ...*deptree.Tree) *deptree.Tree {
	out := &deptree.Tree{}
	for _, t := range trees {
		if t == nil {
			continue
		}
		for _, p := range t.NPM {
			if p.Integrity != "" && !p.Link && !p.NotInLock {
				out.NPM = append(out.NPM, p)
			}
		}
	}
	return out
}

// Compare asks once for the advisories of both manifests' trees and sets
// each side's report from that one answer, so that an advisory published
// since the baseline was recorded is not put down to the release. The
// manifests are changed in place (callers pass copies they own); on an
// error both keep what they recorded and the error says why.
func Compare(ctx context.Context, adv Advisor, old, new *m.Manifest) error {
	if adv == nil || old.Dependencies == nil || new.Dependencies == nil {
		return nil
	}
	advs, err := ask(ctx, adv, old.Dependencies, new.Dependencies)
	if err != nil || advs == nil {
		return err
	}
	for _, man := range []*m.Manifest{old, new} {
		rep := deptree.Match(fromRegistry(man.Dependencies), advs)
		setAdvisories(man, &rep)
	}
	return nil
}

func ask(ctx context.Context, adv Advisor, trees ...*deptree.Tree) (map[string][]deptree.Advisory, error) {
	q := deptree.BulkQuery(fromRegistry(trees...))
	if len(q) == 0 {
		return nil, nil
	}
	return adv.Advisories(ctx, q)
}

// setAdvisories records rep in man, bounded.
func setAdvisories(man *m.Manifest, rep *deptree.AdvisoryReport) {
	if n := len(rep.Vulnerable) - MaxVulnerable; n > 0 {
		rep.Vulnerable = rep.Vulnerable[:MaxVulnerable]
		man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("%d more vulnerable versions than the manifest lists", n))
	}
	if n := len(rep.Unchecked) - MaxVulnerable; n > 0 {
		rep.Unchecked = rep.Unchecked[:MaxVulnerable]
		man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("%d more unchecked advisories than the manifest lists", n))
	}
	man.Run.Advisories = rep
}
