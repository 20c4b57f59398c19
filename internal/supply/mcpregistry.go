package supply

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds of an MCP registry answer: one server entry is small.
const (
	maxRegistryAnswer  = 4 << 20
	registryTimeout    = 30 * time.Second
	officialMeta       = "io.modelcontextprotocol.registry/official"
	registryStatusSize = 32
)

// RegistryStatus asks the MCP registry at base for the entry of name at
// version ("" asks for the latest): GET /v0/servers/NAME/versions/VERSION,
// whose answer states the entry's status in its _meta (the registry's
// official metadata, beside the server.json or inside it). hc is the
// caller's client (nil: one with the default transport).
func RegistryStatus(ctx context.Context, hc *http.Client, base, name, version string) (*m.MCPRegistryEntry, error) {
	if version == "" {
		version = "latest"
	}
	u := strings.TrimSuffix(base, "/") + "/v0/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("asking the MCP registry: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = &http.Client{}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the MCP registry for %s: %w", name, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("asking the MCP registry for %s@%s: %s", name, version, textsafe.Line(res.Status, 80))
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxRegistryAnswer+1))
	if err != nil || len(b) > maxRegistryAnswer {
		return nil, fmt.Errorf("reading the MCP registry's answer for %s: too large or cut", name)
	}
	status, err := parseEntry(b)
	if err != nil {
		return nil, fmt.Errorf("reading the MCP registry's answer for %s: %w", name, err)
	}
	return &m.MCPRegistryEntry{Name: textsafe.Line(name, 200), Version: textsafe.Line(version, 100), Status: status, Source: "registry"}, nil
}

// entryMeta is where an entry states its status.
type entryMeta struct {
	Meta map[string]struct {
		Status string `json:"status"`
	} `json:"_meta"`
	Status string `json:"status"`
}

// status is the official metadata's status, else the field of earlier
// schemas.
func (e *entryMeta) status() string {
	if e == nil {
		return ""
	}
	if s := e.Meta[officialMeta].Status; s != "" {
		return s
	}
	return e.Status
}

// parseEntry finds the entry's status: the official metadata of the
// answer, else of the server.json inside it, else the status field of
// earlier schemas.
func parseEntry(b []byte) (string, error) {
	var doc struct {
		entryMeta
		Server *entryMeta `json:"server"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("not a server entry")
	}
	for _, s := range []string{doc.Meta[officialMeta].Status, doc.Server.status(), doc.Status} {
		if s != "" {
			return textsafe.Line(strings.ToLower(s), registryStatusSize), nil
		}
	}
	return "", fmt.Errorf("the entry states no status")
}
