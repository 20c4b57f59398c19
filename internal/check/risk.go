package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// HarmfulFor returns a manifest's findings that are harmful in themselves
// (policy.Harmful) under the policy configured for its server (the
// defaults when no configured server audits that package).
func HarmfulFor(cfg *config.Config, man *m.Manifest) []policy.Finding {
	pol := policy.Policy{FailOn: policy.DefaultFailOn}
	if s := cfg.ServerForPackage(man.Target.Name); s != nil {
		pol = cfg.Policy(s, "")
	}
	return policy.HarmfulOnes(policy.Evaluate(man, pol))
}

// guardBaseline refuses to record a manifest with harmful findings as a
// baseline unless the user accepts the risk with a reason, which is then
// recorded in the baseline and shown in every later report.
func guardBaseline(man *m.Manifest, harmful []policy.Finding, acceptRisk string, now time.Time) error {
	if len(harmful) == 0 {
		return nil
	}
	lines := make([]string, 0, len(harmful))
	for _, f := range harmful {
		lines = append(lines, textsafe.Line(fmt.Sprintf("%s %s %s: %s", f.Severity, f.Kind, f.Subject, f.Summary), 400))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if strings.TrimSpace(acceptRisk) == "" {
		return fmt.Errorf("%w: %s %s is not recorded as a baseline: it shows %d finding(s) that are harmful in themselves, which a baseline cannot make pass:\n  %s\nIf a reviewer has judged this behavior acceptable, record it as a known risk with --accept-risk \"REASON\"; every check will still fail on it and show the reason",
			verdict.ErrFindings, textsafe.Line(man.Target.Name, 200), textsafe.Line(man.Target.Version, 100), len(lines), strings.Join(lines, "\n  "))
	}
	man.AcceptedRisk = &m.AcceptedRisk{Reason: textsafe.Line(acceptRisk, 1000), At: now.UTC().Format(time.RFC3339), Findings: lines}
	return nil
}

// NotAcceptable explains, for a report, why a version with harmful
// findings is not offered as a baseline ("" when it may be).
func NotAcceptable(harmful []policy.Finding) string {
	if len(harmful) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(harmful))
	for _, f := range harmful {
		kinds = append(kinds, f.Kind)
	}
	slices.Sort(kinds)
	return fmt.Sprintf("%d finding(s) are harmful in themselves (%s): a baseline cannot make them pass, "+
		"and they keep failing every check even when recorded as an accepted risk.",
		len(harmful), strings.Join(slices.Compact(kinds), ", "))
}
