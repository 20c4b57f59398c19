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
		out = append(out, Finding{High, KindHost, ph.Name, d.Name, "looked up host " + d.Name, d.Type + " query to " + d.Server})
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
			out = append(out, Finding{High, KindHost, ph.Name, subject, fmt.Sprintf("contacted %s", endpoint(c)),
				fmt.Sprintf("%s %s %s", c.Proto, c.Op, c.Result)})
		case m.ConnListener:
			out = append(out, listenerFinding(ph.Name, c))
		case m.ConnSensitive:
			out = append(out, Finding{High, KindSensitive, ph.Name, c.Address, "connected to a privileged local socket", c.Address + " " + c.Result})
		}
	}
	return out
}

// listenerFinding judges a listening socket by who can reach it: one on
// every interface or a public address is a door into the user's machine
// (a bind shell); one on loopback serves only local programs; a unix
// socket or one of an unknown family stays medium.
func listenerFinding(phase string, c m.Connection) Finding {
	ev := c.Proto + " " + c.Op + " " + c.Result
	switch {
	case c.Proto != "tcp" && c.Proto != "udp":
		return Finding{Medium, KindListener, phase, endpoint(c), "opened a listening socket", ev}
	case strings.HasPrefix(c.Address, "127.") || c.Address == "::1" || c.Address == "::ffff:127.0.0.1":
		return Finding{Low, KindListener, phase, endpoint(c), "opened a listening socket on loopback", ev}
	}
	return Finding{High, KindListener, phase, endpoint(c), "opened a listening socket reachable from other machines", ev}
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
