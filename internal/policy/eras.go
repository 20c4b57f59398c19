package policy

import m "github.com/mcp-audit/mcp-audit/internal/manifest"

// eraFindings judge what a dual-era server offered or did in one protocol
// era and not the other (manifest.EraDifferences): a client of one era
// gets other tools, descriptions or behaviour than the audit of the other
// would have judged, so the cheapest way to show an auditor one face is
// to give it one era. High, with both observations; serving one era only
// is no finding.
func eraFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, d := range man.EraDifferences {
		f := Finding{Severity: High, Kind: KindEra, Phase: m.PhaseEras, Subject: d.Subject, Evidence: d.Evidence}
		if d.Only != "" {
			f.Summary = "behaves differently by protocol era: " + d.Subject + " only in the " + d.Only + " session"
		} else {
			f.Summary = "offers differently by protocol era: " + d.Subject + " (" + d.Eras + ")"
		}
		out = append(out, f)
	}
	return out
}
