package policy

import m "github.com/mcp-audit/mcp-audit/internal/manifest"

// witnessFindings report what the server did only when it was not
// traced. Staying dormant under the tracer is a choice the server made
// to hide, so each difference is critical, whatever the thing itself.
func witnessFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, d := range man.Witness {
		factors := ""
		if d.Factors != "" {
			factors = " (the runs differed in: " + d.Factors + ")"
		}
		if d.Only == "traced" {
			out = append(out, Finding{Severity: Low, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "depends on the environment: " + d.Subject + " only in the traced run" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: nothing"})
			continue
		}
		out = append(out, Finding{Severity: Critical, Kind: KindAntiAnalysis, Phase: m.PhaseWitness, Subject: d.Subject,
			Summary:  "behaves differently when traced or in another environment: " + d.Subject + " only in the witness run" + factors,
			Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
	}
	return out
}
