package policy

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// appFindings judge the MCP Apps pages the audit read: a host the page
// reaches that its declared CSP domains do not cover is medium (a host
// enforcing the CSP blocks it; one that does not lets the page reach
// where the server never said); what the page asks the host for (the
// camera, the microphone) is low, recorded. A canary in a page is judged
// with the canaries (canaryFindings: critical, since the page's scripts
// can send it anywhere), its instructions to the model with the results.
func appFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, p := range man.Apps {
		phase := m.PhaseReadPrefix + p.URI
		for _, h := range p.Outside {
			out = append(out, Finding{Severity: Medium, Kind: KindApp, Phase: phase, Subject: p.URI + " host " + h,
				Summary:  "MCP Apps page " + p.URI + " reaches " + h + ", outside the domains its CSP declares",
				Evidence: "declared: " + strings.Join(p.CSP, ", ")})
		}
		if len(p.Permissions) > 0 {
			out = append(out, Finding{Severity: Low, Kind: KindApp, Phase: phase, Subject: p.URI + " permissions",
				Summary:  "MCP Apps page " + p.URI + " asks the host for: " + strings.Join(p.Permissions, ", "),
				Evidence: "its _meta.ui.permissions"})
		}
	}
	return out
}

// isAppPhase reports a read of an MCP Apps page.
func isAppPhase(phase string) bool { return strings.HasPrefix(phase, m.PhaseReadPrefix+"ui://") }
