package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// InitializeResult is the part of the initialize response mcp-audit keeps.
type InitializeResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions string `json:"instructions"`
}

// CapabilityNames lists the server's top-level capabilities, sorted.
func (r *InitializeResult) CapabilityNames() []string {
	var out []string
	for k := range r.Capabilities {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Has reports whether the server declared a capability.
func (r *InitializeResult) Has(name string) bool {
	_, ok := r.Capabilities[name]
	return ok
}

// Initialize performs the 2025 handshake: initialize, then
// notifications/initialized. Open(ctx, OpenOptions{Protocol:
// ProtocolLegacy}) does the same and also pins the session's era.
func (c *Client) Initialize(ctx context.Context) (*InitializeResult, error) {
	r, _, err := c.initialize(ctx)
	if err == nil {
		c.setEra(EraLegacy)
	}
	return r, err
}

// initialize sends exactly what the client always sent in 2025.
func (c *Client) initialize(ctx context.Context) (*InitializeResult, json.RawMessage, error) {
	raw, err := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities": map[string]any{
			"roots":       map[string]any{"listChanged": false},
			"sampling":    map[string]any{},
			"elicitation": map[string]any{},
		},
		"clientInfo": map[string]any{"name": cmp.Or(c.opts.ClientName, DefaultClientName), "version": cmp.Or(c.opts.ClientVersion, DefaultClientVersion)},
	})
	if err != nil {
		return nil, nil, err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, fmt.Errorf("decoding initialize result: %w", err)
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		return nil, nil, err
	}
	return &res, raw, nil
}

// Bounds of pagination, so a server cannot keep the audit listing
// forever or grow it without end.
const (
	maxPages     = 50
	maxPageItems = 5000
)

// ListResult is a whole paginated list.
type ListResult struct {
	Items []json.RawMessage
	// Cache is the first page's cache hint (2026-07-28); Pages is how many
	// pages were read.
	Cache CacheHint
	Pages int
	// ServerInfo is the first page's _meta serverInfo, if any.
	ServerInfo *Implementation
}

// List calls a paginated list method (tools/list, prompts/list,
// resources/list) and returns the raw items under key.
func (c *Client) List(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	r, err := c.ListAll(ctx, method, key)
	return r.Items, err
}

// ListAll is List with the page metadata. The x-mcp-header declarations
// of tools/list items are learned for the HTTP transport.
func (c *Client) ListAll(ctx context.Context, method, key string) (*ListResult, error) {
	res := &ListResult{}
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		raw, err := c.Call(ctx, method, params)
		if err != nil {
			return res, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return res, fmt.Errorf("decoding %s result: %w", method, err)
		}
		var got []json.RawMessage
		if err := json.Unmarshal(page[key], &got); err != nil && page[key] != nil {
			return res, fmt.Errorf("decoding %s %s: %w", method, key, err)
		}
		if res.Pages == 0 {
			meta := ParseMeta(raw)
			res.Cache, res.ServerInfo = meta.Cache, meta.ServerInfo
		}
		res.Pages++
		if method == "tools/list" {
			c.book.learn(got)
		}
		res.Items = append(res.Items, got...)
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" || next == cursor || len(res.Items) > maxPageItems {
			return res, nil
		}
		cursor = next
	}
	return res, nil
}
