package policy

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

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
		case m.AlertDroppedRunDeleted, m.AlertReplacedManifest, m.AlertDeletedExisting:
			out = append(out, erasedFinding(pe.phase.Name, a))
			continue
		}
		out = append(out, Finding{Severity: sev, Kind: kind, Phase: pe.phase.Name, Subject: a.Kind, Summary: "anti-analysis or escape attempt: " + a.Kind, Evidence: a.Detail})
	}
	return out
}

// erasedFinding judges an install that erased its traces, from the order
// of its file events (deptree.Erasures): a payload written, run and
// deleted, or a package.json replaced, is high; a file that was there
// before the install deleted by it (an install script deleting itself) is
// medium. What is left on disk cannot show either.
func erasedFinding(phase string, a m.Alert) Finding {
	where, _, _ := strings.Cut(a.Detail, " (")
	f := Finding{Severity: High, Kind: KindErased, Phase: phase, Subject: a.Kind + " " + where, Evidence: a.Detail}
	switch a.Kind {
	case m.AlertDroppedRunDeleted:
		f.Summary = "the install wrote a file, ran it and deleted it"
	case m.AlertReplacedManifest:
		f.Summary = "the install rewrote a package.json (what a later reader of node_modules sees)"
	default:
		f.Severity, f.Summary = Medium, "the install deleted a file the package shipped"
	}
	return f
}
