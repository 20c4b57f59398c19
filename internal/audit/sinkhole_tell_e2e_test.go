package audit_test

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// From the adversarial review (branch w2-review, commit dea325e).

// reviewRun and reviewFixture are in review_witness_e2e_test.go.

// TestReviewSinkholeTell: both runs share the sinkhole, which answered
// every A query, even for the reserved .invalid TLD (NXDOMAIN on every
// real resolver, RFC 6761). A server that steals only when a .invalid name
// fails to resolve steals on every user's machine and never in the audit,
// traced or not. The sinkhole now refuses names no resolver answers.
func TestReviewSinkholeTell(t *testing.T) {
	t.Parallel()
	t.Run("control-always-steal", func(t *testing.T) {
		fs := findings(reviewRun(t, "always-steal"))
		if !hasFinding(fs, policy.KindCanary, policy.Critical, "env:GITHUB_TOKEN") {
			t.Errorf("no canary finding; findings:")
			logFindings(t, fs)
		}
	})
	t.Run("sandbox-nx", func(t *testing.T) {
		man := reviewRun(t, "sandbox-nx")
		fs := findings(man)
		if !policy.Failed(fs, policy.High) {
			t.Errorf("BYPASS: the server steals wherever .invalid is NXDOMAIN, and the audit passes; findings:")
			logFindings(t, fs)
		}
		// The refused lookup is still a lookup, and recorded.
		if !looksUp(man, "nx-probe.invalid") {
			t.Errorf("the NXDOMAIN lookup of nx-probe.invalid is not in the manifest")
		}
	})
}

// looksUp reports whether any phase of man looked up name.
func looksUp(man *m.Manifest, name string) bool {
	for _, p := range man.Phases {
		for _, d := range p.DNS {
			if d.Name == name {
				return true
			}
		}
	}
	return false
}
