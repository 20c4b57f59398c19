package config

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// transportJSON is a server.json package's transport: "stdio",
// "streamable-http" (with the URL the server listens on, which may hold
// {variables}) or the older "sse".
type transportJSON struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// applyTransport sets an HTTP server's transport, port and path from its
// server.json, unless the configuration already chose them. A port or
// path given as a {variable} keeps the default.
func (s *Server) applyTransport(t transportJSON) {
	if s.Transport != "" || !strings.EqualFold(t.Type, "streamable-http") {
		return
	}
	s.Transport = "http"
	u, err := url.Parse(t.URL)
	if err != nil || t.URL == "" {
		return
	}
	if p, err := strconv.Atoi(u.Port()); err == nil && s.HTTPPort == 0 && p > 0 && p < 65536 {
		s.HTTPPort = p
	}
	if s.HTTPPath == "" && strings.HasPrefix(u.Path, "/") && !strings.Contains(u.Path, "{") {
		s.HTTPPath = u.Path
	}
}

// ociTarget is the audit target of a server.json image: the identifier,
// with the package version as its tag when it has neither tag nor digest.
func ociTarget(id, version string) string {
	if _, v := target.SplitImageRef(id); v == "" && version != "" {
		id += ":" + version
	}
	return target.EcosystemOfRegistryType("oci").Spec(id)
}
