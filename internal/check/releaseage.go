package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// DefaultMinReleaseAge is how old a release must be before check judges
// it. This year's hijacked releases were live for hours before the
// registry pulled them (axios 1.14.1 for about three): a candidate that
// young is not accepted, whatever its audit would say.
const DefaultMinReleaseAge = 48 * time.Hour

// publishTimer is a registry that can say when a version was published
// when the abbreviated document does not (target.Registry).
type publishTimer interface {
	PublishTime(ctx context.Context, p *target.Packument, name, version string) (time.Time, error)
}

// minReleaseAge is the option's, else the configuration's, else the
// default.
func (c *checker) minReleaseAge() time.Duration {
	switch {
	case c.opts.MinReleaseAge != nil:
		return *c.opts.MinReleaseAge
	case c.cfg.MinReleaseAge != nil:
		return time.Duration(*c.cfg.MinReleaseAge)
	}
	return DefaultMinReleaseAge
}

func (c *checker) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// published is when the registry says name@version was published (zero
// when it does not say).
func (c *checker) published(ctx context.Context, p *target.Packument, name, version string) time.Time {
	if pt, ok := c.reg.(publishTimer); ok {
		t, err := pt.PublishTime(ctx, p, name, version)
		if err != nil {
			c.log.Warn("reading the publish time", "package", name+"@"+version, "err", err)
		}
		return t
	}
	return p.Published(version)
}

// tooNew is the report of a candidate published less than the minimum
// release age ago (nil when it is old enough, its age unknown, or the
// minimum 0): not audited, incomplete, with when it becomes eligible. The
// scheduled Action proposes no baseline for it (no manifest is written).
func (c *checker) tooNew(s *config.Server, cand candidate, base, dependency string, published time.Time) *report.DiffReport {
	age := c.minReleaseAge()
	if published.IsZero() || age <= 0 || c.now().Sub(published) >= age {
		return nil
	}
	eco, name := baselineKey(s)
	eligible := published.Add(age).UTC()
	what := fmt.Sprintf("%s %s was published at %s", name, cand.version, published.UTC().Format(time.RFC3339))
	if dependency != "" {
		what = fmt.Sprintf("the tree of %s %s resolves to %s, published at %s", name, cand.version, dependency, published.UTC().Format(time.RFC3339))
	}
	reason := fmt.Sprintf("too-new: %s, less than the minimum release age (%s) ago; it becomes eligible at %s (--min-release-age 0 judges it now)",
		what, age, eligible.Format(time.RFC3339))
	pol := c.policy(s)
	res := &diff.Result{Old: diff.Version{Ecosystem: eco, Name: name, Version: base}, New: diff.Version{Ecosystem: eco, Name: name, Version: cand.version},
		Changes: []diff.Change{}, Findings: []policy.Finding{}, FailOn: pol.FailOn, Verdict: m.VerdictIncomplete, Incomplete: []string{reason}, Counts: map[string]int{}}
	c.log.Info("too new to judge", "server", s.Name, "version", cand.version, "eligible", eligible)
	return &report.DiffReport{Server: s.Name, Baseline: base != "", Result: res,
		TooNew: &report.TooNew{Version: cand.version, Published: published.UTC().Format(time.RFC3339), Eligible: eligible.Format(time.RFC3339), Dependency: dependency}}
}
