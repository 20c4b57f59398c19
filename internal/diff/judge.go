package diff

import (
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
	r.Verdict = m.VerdictPass
	if policy.Failed(r.Findings, pol.FailOn) {
		r.Verdict = m.VerdictFail
	}
	r.Counts = policy.Counts(r.Findings)
	return r
}
