package policy

import m "github.com/mcp-audit/mcp-audit/internal/manifest"

// alertFindings report anti-analysis and escape attempts. An incomplete
// trace (cut at its size limit, or a per-phase list that overflowed) is
// high too: pushing the trace or a list past its limit is the cheapest
// way to hide what comes after, so it can never end in a pass.
func alertFindings(pe *phaseEval) []Finding {
	var out []Finding
	for _, a := range pe.phase.Alerts {
		sev := High
		kind := KindEscape
		switch a.Kind {
		case m.AlertTraceIncomplete:
			kind = KindTrace
		case m.AlertMemfd:
			// JIT runtimes (.NET, some node add-ons) make anonymous memory
			// files; executing one is what matters (fileless_exec).
			sev = Low
		case m.AlertFilelessExec:
			sev = Critical
		case m.AlertDetached:
			kind = KindProcess
		}
		out = append(out, Finding{Severity: sev, Kind: kind, Phase: pe.phase.Name, Subject: a.Kind, Summary: "anti-analysis or escape attempt: " + a.Kind, Evidence: a.Detail})
	}
	return out
}
