package deptree

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// AdvisorySeverity is the default weight of a known-vulnerable version in
// the tree, whatever the advisory's own severity (which the finding
// quotes): the audit did not see the vulnerable code reached.
const AdvisorySeverity = Medium

// Vulnerability is an installed version an advisory covers.
type Vulnerability struct {
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Advisory Advisory `json:"advisory"`
}

// Unchecked is an advisory whose range could not be read (or an
// installed version that is not semver): listed, never taken for either
// answer.
type Unchecked struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	ID       int64  `json:"id"`
	Range    string `json:"range"`
	Severity string `json:"severity"`
}

// AdvisoryReport is what the advisories say of one tree.
type AdvisoryReport struct {
	Vulnerable []Vulnerability `json:"vulnerable"`
	Unchecked  []Unchecked     `json:"unchecked,omitempty"`
}

// Match finds which installed versions of t the advisories cover, as npm
// does: node-semver ranges, prereleases included.
func Match(t *Tree, advs map[string][]Advisory) AdvisoryReport {
	var r AdvisoryReport
	q := BulkQuery(t)
	for _, name := range sortedKeys(q) {
		for _, a := range advs[name] {
			c, err := nodeRange(a.VulnerableVersions)
			for _, v := range q[name] {
				sv, verr := semver.NewVersion(v)
				if err != nil || verr != nil {
					r.Unchecked = append(r.Unchecked, Unchecked{Name: name, Version: v, ID: a.ID, Range: a.VulnerableVersions, Severity: a.Severity})
					continue
				}
				if c.Check(sv) {
					r.Vulnerable = append(r.Vulnerable, Vulnerability{Name: name, Version: v, Advisory: a})
				}
			}
		}
	}
	slices.SortFunc(r.Vulnerable, func(a, b Vulnerability) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Version, b.Version), cmp.Compare(a.Advisory.ID, b.Advisory.ID))
	})
	return r
}

// nodeRange reads a node-semver range as Masterminds constraints, with
// prereleases matching as npm's advisory check lets them. The two
// grammars agree on the forms advisories use ("<1.2.3", ">=1.0.0 <1.4.2",
// "||" alternatives, "*", x-ranges, hyphen ranges).
func nodeRange(r string) (*semver.Constraints, error) {
	s := strings.TrimSpace(r)
	if s == "" {
		s = "*"
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return nil, err
	}
	c.IncludePrerelease = true
	return c, nil
}

// AdvisoryDelta is how a release changes the advisories its tree is
// covered by, with both trees matched against the same advisories (asked
// for together, now): an advisory published since the baseline was
// recorded is not the release's doing.
type AdvisoryDelta struct {
	// Fixed are advisories the old tree had and the new one has not;
	// Added the reverse. Keyed by package name and advisory id: a version
	// bump that stays in the range is neither.
	Fixed []Vulnerability `json:"fixed"`
	Added []Vulnerability `json:"added"`
}

// CompareAdvisories is the delta from old to new.
func CompareAdvisories(old, new AdvisoryReport) AdvisoryDelta {
	return AdvisoryDelta{Fixed: missing(old.Vulnerable, new.Vulnerable), Added: missing(new.Vulnerable, old.Vulnerable)}
}

// missing lists the (name, advisory) pairs of a that b lacks, once each.
func missing(a, b []Vulnerability) []Vulnerability {
	key := func(v Vulnerability) string { return fmt.Sprintf("%s\x00%d", v.Name, v.Advisory.ID) }
	seen := map[string]bool{}
	for _, v := range b {
		seen[key(v)] = true
	}
	var out []Vulnerability
	for _, v := range a {
		if k := key(v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// Summary is the comparison's line: "fixes 2 advisories, adds 1".
func (d AdvisoryDelta) Summary() string {
	var parts []string
	if n := len(d.Fixed); n > 0 {
		parts = append(parts, fmt.Sprintf("fixes %d %s", n, plural(n, "advisory", "advisories")))
	}
	if n := len(d.Added); n > 0 {
		parts = append(parts, fmt.Sprintf("adds %d", n))
		if len(d.Fixed) == 0 {
			parts[len(parts)-1] += " " + plural(n, "advisory", "advisories")
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
