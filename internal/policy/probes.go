package policy

import (
	"strconv"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// probeFindings judge what the server's listening sockets answered the
// audit's probe (an HTTP GET with Origin: m.ProbeOrigin): an answer that
// allows any origin, or reflects the probe's, lets every web page the
// user opens read what the socket serves, so it is high, once per socket.
// A canary in what it served is a canary finding (served, critical).
func probeFindings(pe *phaseEval) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, p := range pe.phase.Probes {
		acao := probeHeader(p, "Access-Control-Allow-Origin")
		if acao != "*" && !strings.EqualFold(acao, m.ProbeOrigin) {
			continue
		}
		ep := endpoint(m.Connection{Address: p.Address, Port: p.Port})
		if seen[ep] {
			continue
		}
		seen[ep] = true
		how := "allows any origin"
		if acao != "*" {
			how = "allows the probe's own origin (" + m.ProbeOrigin + ", reflected)"
		}
		ev := p.Request + " answered"
		if p.Status != 0 {
			ev += " " + strconv.Itoa(p.Status)
		}
		out = append(out, Finding{Severity: High, Kind: KindListener, Phase: pe.phase.Name, Subject: ep + " CORS",
			Summary:  "a listening socket's answers can be read by any web page the user opens: it " + how,
			Evidence: ev + "; Access-Control-Allow-Origin: " + acao})
	}
	return out
}

// probeHeader is the value of the named header in a probe's answer.
func probeHeader(p m.ListenerProbe, name string) string {
	for _, h := range p.Headers {
		n, v, ok := strings.Cut(h, ":")
		if ok && strings.EqualFold(strings.TrimSpace(n), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
