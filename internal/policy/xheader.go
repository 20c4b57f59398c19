package policy

import (
	"encoding/json"
	"regexp"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
)

// secretArg is an argument name or header that holds a credential.
var secretArg = regexp.MustCompile(`(?i)(api[-_]?key|token|secret|passw(or)?d|credential|auth|bearer|cookie|session|private[-_]?key)`)

// xheaderFindings judge the arguments a tool asks clients to mirror into
// an HTTP header (x-mcp-header, 2026-07-28): a header is what proxies,
// gateways and load balancers log, so a tool that has clients send a
// secret argument there spreads it wherever the request goes (high,
// harmful as exposure). A header the declarations make invalid (a
// conforming client drops the tool) is medium.
func xheaderFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, t := range man.Tools {
		if len(t.InputSchema) == 0 || !strings.Contains(string(t.InputSchema), "x-mcp-header") {
			continue
		}
		raw, _ := json.Marshal(map[string]json.RawMessage{"inputSchema": t.InputSchema})
		_, params, err := mcpclient.ToolHeaders(raw)
		if err != nil {
			out = append(out, Finding{Severity: Medium, Kind: KindTool, Phase: m.PhaseStartup, Subject: t.Name + " x-mcp-header",
				Summary: "tool " + t.Name + " declares HTTP header arguments a conforming client refuses", Evidence: err.Error()})
			continue
		}
		for _, p := range params {
			arg := strings.Join(p.Path, ".")
			if !secretArg.MatchString(arg) && !secretArg.MatchString(p.Header) {
				continue
			}
			out = append(out, Finding{Severity: High, Kind: KindTool, Phase: m.PhaseStartup, Subject: t.Name + " x-mcp-header " + arg,
				Summary:  "tool " + t.Name + " asks clients to send its secret-like argument " + arg + " in an HTTP header (Mcp-Param-" + p.Header + "), which intermediaries log",
				Evidence: "inputSchema: " + arg + " has x-mcp-header " + p.Header})
		}
	}
	return out
}
