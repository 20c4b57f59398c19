package diff

import (
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// Judge judges one version on its own (no baseline): its findings under
// pol, as a Result with no changes.
func Judge(man *m.Manifest, pol policy.Policy) *Result {
	empty := &m.Manifest{Target: m.Target{Ecosystem: man.Target.Ecosystem, Name: man.Target.Name}, Outcome: man.Outcome}
	r := Compare(empty, man, pol)
	r.Changes = []Change{}
	r.Findings = policy.Evaluate(man, pol)
	r.judge(man, pol)
	return r
}

// judge decides the verdict of the new version: its findings, and what
// its audit could not observe.
func (r *Result) judge(man *m.Manifest, pol policy.Policy) {
	r.FailOn, r.AllowIncomplete = pol.FailOn, pol.AllowIncomplete
	r.Incomplete = coverage.Incomplete(man)
	cov := man.Coverage
	if cov == nil {
		cov = coverage.Compute(man, "")
	}
	r.Coverage = coverage.Summary(cov)
	r.Verdict = policy.Verdict(r.Findings, pol, r.Incomplete)
	r.Counts = policy.Counts(r.Findings)
}

// Policy is the threshold the result was judged under (no allow-list).
func (r *Result) Policy() policy.Policy {
	return policy.Policy{FailOn: r.FailOn, AllowIncomplete: r.AllowIncomplete}
}
