package policy

import (
	"fmt"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// dnsFindings report each host looked up once per phase.
func dnsFindings(pe *phaseEval) []Finding {
	var out []Finding
	ph := pe.phase
	for _, d := range ph.DNS {
		if pe.pol.Allow.host(d.Name) || pe.hosts[d.Name] {
			continue
		}
		pe.hosts[d.Name] = true
		if f, ok := pe.hostFinding(d.Name, "looked up host "+d.Name, "resolved through the sandbox's DNS ("+d.Type+" record)"); ok {
			out = append(out, f)
		}
	}
	return out
}

// networkFindings report egress to hosts not already reported by a lookup,
// listening sockets, and connections to privileged local sockets.
func networkFindings(pe *phaseEval) []Finding {
	var out []Finding
	ph := pe.phase
	for _, c := range ph.Network {
		subject := c.Name
		if subject == "" {
			subject = c.Address
		}
		switch c.Category {
		case m.ConnEgress:
			if pe.pol.Allow.host(subject) || pe.pol.Allow.host(c.Address) || pe.hosts[subject] {
				continue
			}
			pe.hosts[subject] = true
			if f, ok := pe.hostFinding(subject, "contacted "+endpoint(c), fmt.Sprintf("%s %s %s", c.Proto, c.Op, c.Result)); ok {
				out = append(out, f)
			}
		case m.ConnListener:
			if expectedListener(pe.man, c) {
				continue
			}
			out = append(out, listenerFinding(ph.Name, c))
		case m.ConnSensitive:
			out = append(out, Finding{Severity: High, Kind: KindSensitive, Phase: ph.Name, Subject: c.Address, Summary: "connected to a privileged local socket", Evidence: c.Address + " " + c.Result})
		}
	}
	return out
}

// expectedListener: a server audited over Streamable HTTP must listen on
// the port it was given; that socket is how the audit talks to it.
func expectedListener(man *m.Manifest, c m.Connection) bool {
	return man != nil && man.Target.Transport == m.TransportHTTP && c.Proto == "tcp" && c.Port == man.Target.ListenPort && c.Port != 0
}

// listenerFinding judges a listening socket by who can reach it: one on
// every interface or a public address is a door into the user's machine
// (a bind shell); one on loopback serves only local programs; a unix
// socket or one of an unknown family stays medium.
func listenerFinding(phase string, c m.Connection) Finding {
	ev := c.Proto + " " + c.Op + " " + c.Result
	switch {
	case c.Proto != "tcp" && c.Proto != "udp":
		return Finding{Severity: Medium, Kind: KindListener, Phase: phase, Subject: endpoint(c), Summary: "opened a listening socket", Evidence: ev}
	case strings.HasPrefix(c.Address, "127.") || c.Address == "::1" || c.Address == "::ffff:127.0.0.1":
		return Finding{Severity: Low, Kind: KindListener, Phase: phase, Subject: endpoint(c), Summary: "opened a listening socket on loopback", Evidence: ev}
	}
	return Finding{Severity: High, Kind: KindListener, Phase: phase, Subject: endpoint(c), Summary: "opened a listening socket reachable from other machines", Evidence: ev}
}

// endpoint names a connection by host (name when known) and port.
func endpoint(c m.Connection) string {
	host := c.Name
	if host == "" {
		host = c.Address
	}
	if c.Port == 0 {
		return host
	}
	if strings.Contains(host, ":") {
		return fmt.Sprintf("[%s]:%d", host, c.Port)
	}
	return fmt.Sprintf("%s:%d", host, c.Port)
}
