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

// Initialize performs the handshake: initialize, then
// notifications/initialized.
func (c *Client) Initialize(ctx context.Context) (*InitializeResult, error) {
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
		return nil, err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decoding initialize result: %w", err)
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		return nil, err
	}
	return &res, nil
}

// maxPages bounds pagination so a server cannot keep the audit listing
// forever.
const maxPages = 50

// List calls a paginated list method (tools/list, prompts/list,
// resources/list) and returns the raw items under key.
func (c *Client) List(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		raw, err := c.Call(ctx, method, params)
		if err != nil {
			return items, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return items, fmt.Errorf("decoding %s result: %w", method, err)
		}
		var got []json.RawMessage
		if err := json.Unmarshal(page[key], &got); err != nil && page[key] != nil {
			return items, fmt.Errorf("decoding %s %s: %w", method, key, err)
		}
		items = append(items, got...)
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" || next == cursor || len(items) > 5000 {
			return items, nil
		}
		cursor = next
	}
	return items, nil
}
