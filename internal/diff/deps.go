package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// findingKinds maps a tree change's kind to the finding kind it is
// judged as; a change of a kind not listed (versions) is only listed.
var findingKinds = map[string]string{
	deptree.ChangeDependency:    policy.KindDependency,
	deptree.ChangeIncomplete:    policy.KindDependency,
	deptree.ChangeIntegrity:     policy.KindIntegrity,
	deptree.ChangeInstallScript: policy.KindInstallScript,
	deptree.ChangeHook:          policy.KindStartupHook,
	deptree.ChangeBin:           policy.KindCommand,
}

// dependencies compares the resolved trees (deptree.Compare): every
// difference is a change of area dependency, and those the rules weigh
// at low or above are findings too — a new dependency with an install
// script (high), the same version with other content (critical), a
// start-up hook that runs code (high). A baseline recorded without a
// tree gives nothing. The advisories both sides were matched against
// (asked together: check.go) show as "fixes 2 advisories, adds 1".
func (r *Result) dependencies(old, new *m.Manifest) {
	for _, c := range deptree.Compare(old.Dependencies, new.Dependencies) {
		if c.Kind == deptree.ChangeVersion && c.Subject == new.Target.Name && c.Subject == old.Target.Name {
			continue // the tree holds the target itself: its new version is the comparison, no change
		}
		r.add(Change{Op: c.Op, Area: m.AreaDependency, Phase: m.PhaseDependencies, Subject: c.Ecosystem + " " + c.Subject,
			Detail: c.Detail, Field: c.Kind})
		kind, ok := findingKinds[c.Kind]
		if !ok || c.Severity < deptree.Low {
			continue
		}
		subject := c.Subject
		if c.Kind == deptree.ChangeBin {
			subject = c.Ecosystem + " " + c.Subject + " bin"
		}
		r.addFinding(policy.Finding{Severity: policy.Severity(c.Severity), Kind: kind, Phase: m.PhaseDependencies,
			Subject: subject, Summary: treeSummary(c), Evidence: c.Detail})
	}
	slices.SortStableFunc(r.Findings, func(a, b policy.Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Subject, b.Subject))
	})
	if old.Run.Advisories != nil && new.Run.Advisories != nil {
		d := deptree.CompareAdvisories(*old.Run.Advisories, *new.Run.Advisories)
		if s := d.Summary(); s != "" {
			r.add(Change{Op: Changed, Area: m.AreaDependency, Phase: m.PhaseDependencies, Subject: "advisories",
				Detail: s + advisoryList(d), Field: "advisories"})
		}
	}
}

// addFinding adds f, in place of a finding of the same kind and subject
// that weighs less (a hook a single audit lists low, which a comparison
// finds new and high).
func (r *Result) addFinding(f policy.Finding) {
	for i, g := range r.Findings {
		if g.Kind == f.Kind && g.Subject == f.Subject {
			if g.Severity < f.Severity {
				r.Findings[i] = f
			}
			return
		}
	}
	r.Findings = append(r.Findings, f)
}

func treeSummary(c deptree.Change) string {
	switch c.Kind {
	case deptree.ChangeDependency:
		return fmt.Sprintf("the release adds %s %s, which runs an install script", c.Ecosystem, c.Subject)
	case deptree.ChangeIntegrity:
		return fmt.Sprintf("%s %s: the same version with other content than the reviewed tree's", c.Ecosystem, c.Subject)
	case deptree.ChangeInstallScript:
		return fmt.Sprintf("%s %s %s its install script", c.Ecosystem, c.Subject, map[bool]string{true: "gained", false: "changed"}[c.Severity >= deptree.High])
	case deptree.ChangeHook:
		return "a start-up hook that runs code at every interpreter start is " + c.Op + ": " + c.Subject
	case deptree.ChangeBin:
		return fmt.Sprintf("%s %s puts a new command on PATH", c.Ecosystem, c.Subject)
	case deptree.ChangeIncomplete:
		return "the new tree passed its bounds: what they left out is not compared"
	}
	return c.Op + " " + c.Kind + " " + c.Subject
}

// advisoryList names the advisories a delta fixes and adds, bounded.
func advisoryList(d deptree.AdvisoryDelta) string {
	name := func(v deptree.Vulnerability) string {
		return fmt.Sprintf("%s@%s advisory %d", v.Name, v.Version, v.Advisory.ID)
	}
	var parts []string
	for i, v := range d.Fixed {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("fixed %d more", len(d.Fixed)-5))
			break
		}
		parts = append(parts, "fixed "+name(v))
	}
	for i, v := range d.Added {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("added %d more", len(d.Added)-5))
			break
		}
		parts = append(parts, "added "+name(v))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
