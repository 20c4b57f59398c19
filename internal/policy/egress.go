package policy

import (
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// KindTelemetry marks egress nobody asked for (at startup, at idle, in an
// install script) to a host that is not the server's own service.
const KindTelemetry = "telemetry"

// egressContext is what decides whether a host was expected: who supplied
// it, which service is the server's own.
type egressContext struct {
	supplied map[string]bool            // hosts the configuration handed the server
	byCall   map[string]map[string]bool // phase -> hosts in that call's arguments
	service  []string                   // registrable domains of the server's own service
}

// newEgressContext reads the context from the manifest. A host that
// received the credential the server was given is its own service too;
// a planted canary can never make a host expected (canary findings stand
// on their own, critical).
func newEgressContext(man *m.Manifest) *egressContext {
	e := &egressContext{supplied: map[string]bool{}, byCall: map[string]map[string]bool{}, service: man.Target.Service}
	for _, h := range man.Target.Supplied {
		e.supplied[h] = true
	}
	for _, c := range man.Calls {
		set := map[string]bool{}
		for _, h := range callerHosts(man, c) {
			set[h] = true
		}
		e.byCall[c.Phase] = set
	}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if h.Given && h.How == m.HowSent {
				if host := sentTo(h.Evidence); host != "" {
					e.service = append(e.service, hosts.Registrable(host))
				}
			}
		}
	}
	return e
}

// sentTo is the host of a "sent" hit's evidence ("https POST host/path",
// "dns name", "tcp host:port").
func sentTo(evidence string) string {
	f := strings.Fields(evidence)
	if len(f) == 0 {
		return ""
	}
	dest := f[len(f)-1]
	if i := strings.IndexByte(dest, '/'); i >= 0 {
		dest = dest[:i]
	}
	if i := strings.LastIndexByte(dest, ':'); i >= 0 && !strings.Contains(dest[:i], ":") {
		dest = dest[:i]
	}
	return strings.ToLower(dest)
}

// isCallPhase reports phases in which the caller asked for something.
func isCallPhase(phase string) bool {
	return strings.HasPrefix(phase, m.PhaseCallPrefix) || strings.HasPrefix(phase, m.PhasePromptPrefix) ||
		strings.HasPrefix(phase, m.PhaseReadPrefix) || strings.HasPrefix(phase, m.PhaseCompletePrefix)
}

// hostFinding judges traffic to host in a phase. With an allow-list,
// anything outside it is high. Without one, context decides: a host the
// configuration or the call supplied is expected (no finding); one used
// while a call is open is an observation (low), but not one used after
// the call was answered (see lateHost); the server's own service and an
// install script's download host are low; anything else unprompted is
// telemetry (medium). In a diff a new host is high whatever the context.
func (pe *phaseEval) hostFinding(host, summary, evidence string) (Finding, bool) {
	ph := pe.phase.Name
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if len(pe.pol.Allow.Hosts) > 0 {
		return Finding{Severity: High, Kind: KindHost, Phase: ph, Subject: host, Summary: summary + " (not in the allow-list)", Evidence: evidence}, true
	}
	e := pe.egress
	late := isCallPhase(ph) && pe.lateHost(h)
	if late {
		summary += " after the call was answered"
		evidence += "; after_answer: not needed for the answer (work scheduled earlier, or left running, lands here)"
	}
	switch {
	case e.supplied[h] || e.byCall[ph][h]:
		return Finding{}, false
	case isCallPhase(ph) && !late:
		return Finding{Severity: Low, Kind: KindHost, Phase: ph, Subject: host, Summary: summary + " during a call", Evidence: evidence}, true
	case hosts.SameService(h, e.service):
		return Finding{Severity: Low, Kind: KindHost, Phase: ph, Subject: host, Summary: summary + " (its own service)", Evidence: evidence}, true
	case ph == m.PhaseInstall && hosts.IsDownloadHost(h):
		return Finding{Severity: Low, Kind: KindHost, Phase: ph, Subject: host, Summary: summary + " from an install script (a download host)", Evidence: evidence}, true
	}
	if late {
		return Finding{Severity: Medium, Kind: KindTelemetry, Phase: ph, Subject: host, Summary: summary + " (telemetry: nobody asked for it)", Evidence: evidence}, true
	}
	return Finding{Severity: Medium, Kind: KindTelemetry, Phase: ph, Subject: host, Summary: summary + " unprompted (telemetry: nobody asked for it)", Evidence: evidence}, true
}

// lateHost reports whether the phase used host after its call was
// answered (a lookup, a connection or a request marked after_answer). One
// late use is enough: a server cannot launder a late payload by also
// contacting the host while the call is still open.
func (pe *phaseEval) lateHost(h string) bool {
	if pe.late == nil {
		pe.late = map[string]bool{}
		norm := func(s string) string { return strings.ToLower(strings.TrimSuffix(s, ".")) }
		for _, d := range pe.phase.DNS {
			if d.AfterAnswer {
				pe.late[norm(d.Name)] = true
			}
		}
		for _, c := range pe.phase.Network {
			if c.AfterAnswer {
				pe.late[norm(c.Name)], pe.late[norm(c.Address)] = true, true
			}
		}
		for _, r := range pe.phase.Requests {
			if r.AfterAnswer {
				pe.late[norm(r.Name)], pe.late[norm(r.Host)] = true, true
			}
		}
		delete(pe.late, "")
	}
	return pe.late[h]
}

// callerHosts are the hosts in a call's arguments that the caller chose.
// Values the server's own schema put there (const, enum, default,
// pattern, examples) are the server's choice, not the caller's: a tool
// whose schema requires "region": {"enum": ["collect.evil.example"]} does
// not make that host supplied.
func callerHosts(man *m.Manifest, c m.Call) []string {
	schema := serverText(man, c)
	var out []string
	for _, h := range hosts.Extract(string(c.Args)) {
		if !strings.Contains(schema, h) {
			out = append(out, h)
		}
	}
	return out
}

// ServerChosen reports whether a value of a call's arguments appears in
// the called tool's own input schema.
func ServerChosen(man *m.Manifest, c m.Call, value string) bool {
	return strings.Contains(serverText(man, c), strings.ToLower(value))
}

// serverText is the lower-cased input schema of the tool a call called.
func serverText(man *m.Manifest, c m.Call) string {
	if c.Kind != "tool" {
		return ""
	}
	for _, t := range man.Tools {
		if t.Name == c.Name {
			return strings.ToLower(string(t.InputSchema))
		}
	}
	return ""
}
