package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// RegistryEntry is what a server.json says of its MCP registry entry.
type RegistryEntry struct {
	Name    string
	Version string
	// Status is the status the file records (a server.json fetched from a
	// registry carries the registry's metadata), "" when none.
	Status string
}

// OfficialMeta is the _meta key under which an MCP registry states what
// it knows of an entry (its status among it).
const OfficialMeta = "io.modelcontextprotocol.registry/official"

// registryStatus is the status a server.json records: the registry's
// metadata, else the top-level status of earlier schemas.
func registryStatus(top string, meta map[string]json.RawMessage) string {
	var official struct {
		Status string `json:"status"`
	}
	if raw, ok := meta[OfficialMeta]; ok && json.Unmarshal(raw, &official) == nil && official.Status != "" {
		return textsafe.Line(strings.ToLower(official.Status), 32)
	}
	return textsafe.Line(strings.ToLower(top), 32)
}

// checkRegistryURL accepts an empty value or an http(s) URL.
func checkRegistryURL(u string) error {
	if u == "" {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", u)
	}
	return nil
}
