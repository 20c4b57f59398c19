package policy

import m "github.com/mcp-audit/mcp-audit/internal/manifest"

// witnessFindings report what the server did only when it was not
// traced. Staying dormant under the tracer is a choice the server made
// to hide, so each difference is critical, whatever the thing itself.
func witnessFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, d := range man.Witness {
		out = append(out, Finding{Severity: Critical, Kind: KindAntiAnalysis, Phase: m.PhaseWitness, Subject: d.Subject,
			Summary:  "behaves differently when traced: " + d.Subject + " only in the witness run",
			Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
	}
	return out
}
