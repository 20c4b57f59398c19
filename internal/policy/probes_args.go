package policy

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// argProbeFindings judge the marker probes calls carried (internal/argsynth):
// a server that evaluates what a free-text parameter holds as code or a
// template (the product of the probe's expression in its result) runs what
// the model was told by whatever it read: high, a code-injection path
// the tool's schema does not announce. Where the parameter says it takes
// code, evaluating it is its job: low. A path probe's note opened and a URL
// probe's host looked up are what file and fetch tools do: low, recorded.
func argProbeFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, c := range man.Calls {
		ph := man.PhaseByName(c.Phase)
		for _, p := range c.Probes {
			where := probeSeen(p, ph)
			if where == "" {
				continue
			}
			f := Finding{Severity: Low, Kind: KindTool, Phase: c.Phase, Subject: c.Name + " " + p.Param + " " + p.Kind + " probe",
				Evidence: "marker " + where + " (" + strings.Join(p.Markers, ", ") + ")"}
			switch {
			case (p.Kind == "expression" || p.Kind == "template") && !p.Declared:
				f.Severity = High
				f.Summary = "tool " + c.Name + " evaluates its parameter " + p.Param + " as " + p.Kind + " code, which its schema does not say"
			case p.Kind == "expression" || p.Kind == "template":
				f.Summary = "tool " + c.Name + " evaluates its parameter " + p.Param + " (" + p.Kind + "), as it says"
			default:
				f.Summary = "tool " + c.Name + " acts on its parameter " + p.Param + " (" + p.Kind + " probe seen)"
			}
			out = append(out, f)
		}
	}
	return out
}

// probeSeen says where a probe's marker showed, "" when it did not.
func probeSeen(p m.Probe, ph *m.Phase) string {
	if p.InResult {
		return "in the result"
	}
	if ph == nil {
		return ""
	}
	for _, mk := range p.Markers {
		kind, v, _ := strings.Cut(mk, " ")
		switch kind {
		case "file":
			for _, f := range ph.Files {
				if strings.HasSuffix(v, strings.TrimPrefix(f.Path, "<workspace>")) && strings.HasPrefix(f.Path, "<workspace>/") {
					return "file opened"
				}
			}
		case "dns":
			for _, q := range ph.DNS {
				if strings.EqualFold(strings.TrimSuffix(q.Name, "."), v) {
					return "host looked up"
				}
			}
		}
	}
	return ""
}
