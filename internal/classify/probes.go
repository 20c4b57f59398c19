package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// probeHeaders are the answer headers worth keeping in the manifest: who
// may read the answer (CORS), what it is, who serves it, where it sends
// the caller. Canaries are searched in every header.
var probeHeaders = map[string]bool{
	"access-control-allow-origin": true, "access-control-allow-credentials": true,
	"access-control-allow-methods": true, "access-control-allow-headers": true,
	"content-type": true, "server": true, "location": true, "www-authenticate": true,
}

const (
	maxProbeExcerpt = 240
	maxProbeHeader  = 200
)

// probes lists each probe in the phase it happened in, and every canary
// value in what it served (headers and body) as a served hit. What the
// probe read comes from the server, bounded by sinklog.ReadProbes.
func (c *classifier) probes() {
	for _, pr := range c.in.Probes {
		p := c.phaseAt(c.in.ProbedAt)
		where := fmt.Sprintf("%s %s", endpointOf(pr.Address, pr.Port), pr.Request)
		served := append([]byte(strings.Join(pr.Headers, "\n")+"\n"), pr.Body...)
		for _, h := range c.finder.Find(served) {
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowServed, Evidence: textsafe.OneLine(where, 200), Encoding: h.Encoding})
		}
		lp := m.ListenerProbe{Address: pr.Address, Port: pr.Port, Request: textsafe.OneLine(pr.Request, 80), Status: pr.Status,
			Bytes: len(pr.Body), Error: textsafe.OneLine(pr.Error, 80)}
		for _, h := range pr.Headers {
			name, _, _ := strings.Cut(h, ":")
			if probeHeaders[strings.ToLower(strings.TrimSpace(name))] {
				lp.Headers = append(lp.Headers, c.probeText(h, maxProbeHeader))
			}
		}
		if len(pr.Body) > 0 {
			sum := sha256.Sum256(pr.Body)
			lp.Digest = "sha256:" + hex.EncodeToString(sum[:])
			lp.Excerpt = c.probeText(string(pr.Body[:min(len(pr.Body), 4*maxProbeExcerpt)]), maxProbeExcerpt)
		}
		p.Probes = append(p.Probes, lp)
	}
}

// probeText is text from the server made safe for the manifest: canary
// values replaced, one line, sanitized, bounded.
func (c *classifier) probeText(s string, max int) string {
	if c.in.Canaries != nil {
		s = c.in.Canaries.Redact(s)
	}
	return textsafe.OneLine(s, max)
}

// endpointOf writes an address and port as host:port ([v6]:port).
func endpointOf(addr string, port int) string {
	if strings.Contains(addr, ":") {
		return fmt.Sprintf("[%s]:%d", addr, port)
	}
	return fmt.Sprintf("%s:%d", addr, port)
}
