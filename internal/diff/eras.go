package diff

import (
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// eraFindings compare the protocol eras two versions answered in: a
// release that stops answering an era its baseline spoke is medium
// (moving to a modern-only server hides nothing by itself — the
// candidate is audited in the era it speaks — but its 2025-era clients
// stop working, and the comparison of the two is era by era).
func (r *Result) eraFindings(old, new *m.Manifest) {
	was, now := erasOf(old), erasOf(new)
	if len(now) == 0 {
		return // it did not open at all: the coverage finding says so
	}
	for _, e := range was {
		if !slices.Contains(now, e) {
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Medium, Kind: policy.KindEra, Subject: "era " + e,
				Summary:  "the new version no longer answers the " + e + " protocol revision its baseline answered",
				Evidence: "baseline: " + strings.Join(was, ", ") + "; candidate: " + strings.Join(now, ", ")})
		}
	}
}

// erasOf are the eras a manifest's server answered in: its eras, or the
// revision of a manifest written before eras were recorded.
func erasOf(man *m.Manifest) []string {
	if len(man.Server.Eras) > 0 {
		return eraFamilies(man.Server.Eras)
	}
	if man.Server.ProtocolVersion != "" {
		return eraFamilies([]string{man.Server.ProtocolVersion})
	}
	return nil
}

// eraFamilies maps revisions to their eras: every 2024 and 2025 revision
// is the handshake era, 2026-07-28 and later the modern one.
func eraFamilies(revs []string) []string {
	var out []string
	for _, v := range revs {
		e := "2025-era (initialize)"
		if v >= "2026-07-28" {
			e = "2026-07-28"
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}
