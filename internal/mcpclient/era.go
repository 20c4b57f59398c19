package mcpclient

import (
	"cmp"
	"encoding/json"
	"fmt"
)

// The protocol revisions the client speaks, and how Open chooses one.
const (
	// ProtocolAuto probes for the 2026-07-28 revision first and falls back
	// to the 2025-06-18 handshake.
	ProtocolAuto = "auto"
	// ProtocolModern is the stateless revision: no initialize, a _meta
	// envelope on every request, server/discover.
	ProtocolModern = "2026-07-28"
	// ProtocolLegacy is the handshake revision the client has always
	// spoken; it equals ProtocolVersion.
	ProtocolLegacy = ProtocolVersion
)

// Era is the family of revisions a session speaks.
type Era string

// The eras. The zero Era is a client that has not opened yet: it sends
// what it is given, with no envelope (as before Open existed).
const (
	EraModern Era = "modern" // 2026-07-28 and later
	EraLegacy Era = "legacy" // 2025-11-25 and earlier (the initialize handshake)
)

// Protocol is the revision string the era speaks.
func (e Era) Protocol() string {
	if e == EraModern {
		return ProtocolModern
	}
	return ProtocolLegacy
}

// Other is the era a second, independent session would speak.
func (e Era) Other() Era {
	if e == EraModern {
		return EraLegacy
	}
	return EraModern
}

// ParseProtocol checks a --protocol value: auto, 2026-07-28 or 2025-06-18.
func ParseProtocol(s string) (string, error) {
	switch s {
	case "", ProtocolAuto:
		return ProtocolAuto, nil
	case ProtocolModern, ProtocolLegacy:
		return s, nil
	}
	return "", fmt.Errorf("protocol %q: want %s, %s or %s", s, ProtocolAuto, ProtocolModern, ProtocolLegacy)
}

// The reserved _meta keys of the 2026-07-28 envelope.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Extension identifiers the client knows how to drive.
const (
	ExtTasks = "io.modelcontextprotocol/tasks"
	ExtApps  = "io.modelcontextprotocol/ui"
)

// DefaultExtensions are the extensions a modern session advertises: those
// of a host that renders MCP Apps and drives tasks, so a server shows what
// it does for such a host. Options.Extensions replaces them.
func DefaultExtensions() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		ExtTasks: json.RawMessage(`{}`),
		ExtApps:  json.RawMessage(`{"mimeTypes":["text/html;profile=mcp-app"]}`),
	}
}

// modernCapabilities are the client capabilities sent in every modern
// request: what the client answers in input requests (roots, sampling,
// elicitation in form and URL mode) and the extensions.
func (c *Client) modernCapabilities() map[string]any {
	ext := c.extensions()
	caps := map[string]any{
		"roots":       map[string]any{},
		"sampling":    map[string]any{},
		"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
	}
	if len(ext) > 0 {
		caps["extensions"] = ext
	}
	return caps
}

// envelope is the _meta of a modern request.
func (c *Client) envelope() map[string]any {
	m := map[string]any{
		MetaProtocolVersion:    ProtocolModern,
		MetaClientInfo:         c.clientInfo(),
		MetaClientCapabilities: c.modernCapabilities(),
	}
	if c.opts.LogLevel != "" {
		m[MetaLogLevel] = c.opts.LogLevel
	}
	return m
}

func (c *Client) clientInfo() map[string]any {
	return map[string]any{"name": cmp.Or(c.opts.ClientName, DefaultClientName), "version": cmp.Or(c.opts.ClientVersion, DefaultClientVersion)}
}

// withEnvelope returns params (an object, or nil) with the modern _meta
// envelope merged into its _meta, keeping the caller's own _meta keys
// (a progress token) but never letting them replace the reserved ones.
func (c *Client) withEnvelope(params any) (map[string]any, error) {
	out := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out); err != nil || out == nil {
			return nil, fmt.Errorf("params of a 2026-07-28 request must be an object: %s", truncate(string(b), 60))
		}
	}
	meta, _ := out["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range c.envelope() {
		meta[k] = v
	}
	out["_meta"] = meta
	return out, nil
}
