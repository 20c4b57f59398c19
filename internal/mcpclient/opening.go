package mcpclient

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Opening is what a session learned when it opened, the same for both
// eras: from server/discover (2026-07-28) or initialize (2025).
type Opening struct {
	// Era is the era the session speaks from now on.
	Era Era
	// ProtocolVersion is the revision the session speaks: 2026-07-28, or
	// what the server answered to initialize.
	ProtocolVersion string
	// Eras are the eras the server answered in during this opening: modern
	// when server/discover returned a result or a modern error, legacy when
	// initialize returned a result. A dual-era server on stdio answers one
	// era per process; open a second session to see the other.
	Eras []Era
	// SupportedVersions are the revisions server/discover listed.
	SupportedVersions []string
	ServerInfo        Implementation
	// ServerInfoIn says where ServerInfo was found: "initialize",
	// "result _meta" (where 2026-07-28 puts it) or "result" (a modern
	// server that put it where 2025 did).
	ServerInfoIn string
	Capabilities map[string]json.RawMessage
	// Extensions is the server's capabilities.extensions map.
	Extensions   map[string]json.RawMessage
	Instructions string
	// Cache is server/discover's cache hint.
	Cache CacheHint
	// Result is the raw server/discover or initialize result.
	Result json.RawMessage
	// Probe is what the modern probe of an auto opening got.
	Probe Probe
}

// Implementation is a serverInfo (or clientInfo) object.
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an icon a client may fetch: client-side egress.
type Icon struct {
	Src      string `json:"src"`
	MimeType string `json:"mimeType,omitempty"`
}

// Probe outcomes of an auto opening.
const (
	ProbeSkipped     = "skipped"      // a forced protocol: no probe
	ProbeDiscover    = "discover"     // server/discover returned a result
	ProbeModernError = "modern-error" // a recognized 2026-07-28 error (unsupported version, …)
	ProbeOtherError  = "error"        // another JSON-RPC error: a 2025-era server
	ProbeHTTPStatus  = "http-status"  // an HTTP 4xx without a modern error: a 2025-era server
	ProbeTimeout     = "timeout"      // no answer within the probe deadline
)

// Probe is the modern probe's outcome.
type Probe struct {
	Outcome  string
	Duration time.Duration // from sending the probe to its outcome
	// Detail is the error the probe got (bounded), if any.
	Detail string
	// Late means the probe was answered after the client had fallen back
	// to initialize: the server speaks the modern era but was slower than
	// the probe deadline (a dual-era server is then pinned to the 2025 era
	// on this stdio connection; reopen modern on a fresh one).
	Late bool
}

// Has reports whether the server declared a capability.
func (o *Opening) Has(name string) bool {
	_, ok := o.Capabilities[name]
	return ok
}

// CapabilityNames lists the server's top-level capabilities, sorted.
func (o *Opening) CapabilityNames() []string {
	out := make([]string, 0, len(o.Capabilities))
	for k := range o.Capabilities {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Legacy is the opening in the shape of an initialize result, for code
// written against Initialize.
func (o *Opening) Legacy() *InitializeResult {
	r := &InitializeResult{ProtocolVersion: o.ProtocolVersion, Capabilities: o.Capabilities, Instructions: o.Instructions}
	r.ServerInfo.Name, r.ServerInfo.Version = o.ServerInfo.Name, o.ServerInfo.Version
	return r
}

// Bounds of a discover result's lists.
const (
	maxVersions   = 64
	maxExtensions = 256
)

// ParseDiscover reads a server/discover result.
func ParseDiscover(raw json.RawMessage) (*Opening, error) {
	var d struct {
		SupportedVersions []json.RawMessage          `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Instructions      string                     `json:"instructions"`
		ServerInfo        *Implementation            `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decoding server/discover result: %w", err)
	}
	o := &Opening{Era: EraModern, ProtocolVersion: ProtocolModern, Capabilities: d.Capabilities, Instructions: d.Instructions,
		Result: raw, Cache: ParseCacheHint(raw)}
	for _, v := range d.SupportedVersions[:min(len(d.SupportedVersions), maxVersions)] {
		var s string
		if json.Unmarshal(v, &s) == nil {
			o.SupportedVersions = append(o.SupportedVersions, truncate(s, 64))
		}
	}
	o.Extensions = extensionsOf(d.Capabilities)
	if m := ParseMeta(raw); m.ServerInfo != nil {
		o.ServerInfo, o.ServerInfoIn = *m.ServerInfo, "result _meta"
	} else if d.ServerInfo != nil {
		o.ServerInfo, o.ServerInfoIn = *d.ServerInfo, "result"
	}
	return o, nil
}

// extensionsOf is capabilities.extensions, bounded.
func extensionsOf(caps map[string]json.RawMessage) map[string]json.RawMessage {
	var ext map[string]json.RawMessage
	if json.Unmarshal(caps["extensions"], &ext) != nil || len(ext) == 0 {
		return nil
	}
	if len(ext) > maxExtensions {
		keys := make([]string, 0, len(ext))
		for k := range ext {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys[maxExtensions:] {
			delete(ext, k)
		}
	}
	return ext
}

// openingFromInitialize is the opening of a 2025 handshake.
func openingFromInitialize(r *InitializeResult, raw json.RawMessage) *Opening {
	return &Opening{Era: EraLegacy, ProtocolVersion: r.ProtocolVersion, Eras: []Era{EraLegacy}, Capabilities: r.Capabilities,
		Extensions: extensionsOf(r.Capabilities), Instructions: r.Instructions, Result: raw, ServerInfoIn: "initialize",
		ServerInfo: Implementation{Name: r.ServerInfo.Name, Version: r.ServerInfo.Version}}
}
