package policy

import m "github.com/mcp-audit/mcp-audit/internal/manifest"

// alertFindings report anti-analysis and escape attempts. A trace that is
// incomplete is reported lower: it hides behavior rather than showing any.
func alertFindings(pe *phaseEval) []Finding {
	var out []Finding
	for _, a := range pe.phase.Alerts {
		sev := High
		if a.Kind == m.AlertTraceIncomplete {
			sev = Medium
		}
		kind := KindEscape
		if a.Kind == m.AlertTraceIncomplete {
			kind = KindTrace
		}
		out = append(out, Finding{sev, kind, pe.phase.Name, a.Kind, "anti-analysis or escape attempt: " + a.Kind, a.Detail})
	}
	return out
}
