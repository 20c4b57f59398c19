package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Finding kinds of the supply chain: what the resolved dependency tree,
// the registries and a comparison of two trees say (docs/supply-chain.md).
const (
	// KindDependency is a dependency a release adds with an install script,
	// or a tree past its bounds.
	KindDependency = "dependency"
	// KindIntegrity is the same version with other content.
	KindIntegrity = "integrity"
	// KindStartupHook is an interpreter start-up hook (.pth,
	// sitecustomize) that runs code.
	KindStartupHook = "startup-hook"
	// KindCommand is a new command a release puts on PATH.
	KindCommand = "command"
	// KindLookalike is a name one edit from a popular server's, or a bin
	// that shadows another package's command.
	KindLookalike = "lookalike"
	// KindAdvisory is an installed version a published advisory covers.
	KindAdvisory = "advisory"
	// KindUnpinned is a range below the server, through which packages
	// with install scripts are reached, that users resolve anew.
	KindUnpinned = "unpinned-range"
	// KindRegistryStatus is a version deprecated, or an MCP registry
	// entry deprecated or deleted.
	KindRegistryStatus = "registry-status"
	// KindErased is an install that erased its traces.
	KindErased = "erased-traces"
)

// supplyFindings are what one manifest's tree and registry records say:
// start-up hooks that run code (low: setuptools and editable installs ship
// some), look-alike names (low), known-vulnerable versions (medium),
// unpinned ranges that reach install scripts (low), a deprecated version
// (low), and an MCP registry entry deprecated (low) or deleted (high).
func supplyFindings(man *m.Manifest) []Finding {
	var out []Finding
	add := func(sev deptree.Severity, kind, subject, summary, evidence string) {
		out = append(out, Finding{Severity: Severity(sev), Kind: kind, Phase: m.PhaseDependencies, Subject: subject, Summary: summary, Evidence: evidence})
	}
	t := man.Dependencies
	for _, h := range t.StartupHooks() {
		add(deptree.Low, KindStartupHook, h.Path, "a start-up hook that runs code at every interpreter start: "+h.Path, deptree.HookDetail(h))
	}
	for _, l := range deptree.Lookalikes(t) {
		add(l.Severity, KindLookalike, lookalikeSubject(l), lookalikeSummary(l), l.Kind)
	}
	if rep := man.Run.Advisories; rep != nil {
		for _, v := range rep.Vulnerable {
			a := v.Advisory
			add(deptree.AdvisorySeverity, KindAdvisory, AdvisorySubject(v.Name, a.ID),
				fmt.Sprintf("%s@%s is covered by advisory %d (%s): %s", v.Name, v.Version, a.ID, a.Severity, a.Title),
				strings.TrimSpace(a.URL+" vulnerable "+a.VulnerableVersions))
		}
	}
	if t != nil && man.Target.Name != "" {
		for _, u := range deptree.Unpinned(t, path.Join("node_modules", man.Target.Name)) {
			add(deptree.Low, KindUnpinned, u.From+" → "+u.Name+" "+u.Range,
				fmt.Sprintf("%s depends on %s %s (resolved %s): users resolve it anew, and it reaches install scripts", u.From, u.Name, u.Range, u.Resolved),
				reaches(u))
		}
	}
	if man.Target.Deprecated != "" {
		add(deptree.Low, KindRegistryStatus, "deprecated", man.Target.Name+"@"+man.Target.Version+" is deprecated", man.Target.Deprecated)
	}
	if e := man.Target.MCPRegistry; e != nil {
		switch e.Status {
		case m.RegistryDeleted:
			add(deptree.High, KindRegistryStatus, "mcp-registry "+e.Name, "the MCP registry deleted the entry of "+e.Name,
				"status "+e.Status+" ("+e.Source+")")
		case m.RegistryDeprecated:
			add(deptree.Low, KindRegistryStatus, "mcp-registry "+e.Name, "the MCP registry marks the entry of "+e.Name+" deprecated",
				"status "+e.Status+" ("+e.Source+")")
		}
	}
	if t != nil && !t.Complete() {
		add(deptree.Low, KindDependency, "tree", "the installed tree passed its bounds; what they left out is not recorded", omitted(t))
	}
	return out
}

// AdvisorySubject identifies a known-vulnerable finding across versions:
// the package and the advisory, not the version (a bump that stays in the
// vulnerable range is the same finding).
func AdvisorySubject(name string, id int64) string { return fmt.Sprintf("%s advisory %d", name, id) }

func lookalikeSubject(l deptree.Lookalike) string {
	if l.Bin != "" {
		return l.Name + " bin " + l.Bin
	}
	return l.Name
}

func lookalikeSummary(l deptree.Lookalike) string {
	switch {
	case l.Kind == deptree.LookBinServer:
		return fmt.Sprintf("%s provides the command %s, which is %s's", l.Name, l.Bin, l.Owner)
	case l.Bin != "":
		return fmt.Sprintf("%s provides a command named like %s", l.Name, l.Resembles)
	}
	return fmt.Sprintf("%s resembles %s", l.Name, l.Resembles)
}

func reaches(u deptree.UnpinnedRange) string {
	s := "reaches " + strings.Join(u.Reaches, ", ")
	if u.More > 0 {
		s += fmt.Sprintf(" and %d more", u.More)
	}
	return s
}

func omitted(t *deptree.Tree) string {
	var parts []string
	for _, o := range t.Omitted {
		parts = append(parts, fmt.Sprintf("%d %s", o.Count, o.What))
	}
	return strings.Join(parts, ", ") + " left out"
}
