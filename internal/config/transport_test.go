package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestTransportKeys(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"name": "io.example/remote", "version": "2.0.0",
  "packages": [{"registryType": "npm", "identifier": "remote-mcp", "version": "2.0.0",
    "transport": {"type": "streamable-http", "url": "http://localhost:9123/api/mcp"}}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "templ.json"), []byte(`{"name": "io.example/templ", "version": "1.0.0",
  "packages": [{"registryType": "npm", "identifier": "templ-mcp", "version": "1.0.0",
    "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"}}]}`), 0o644)
	cfg, err := Parse(filepath.Join(dir, "mcp-audit.yml"), []byte(`
servers:
  web:
    target: npm:web-mcp
    transport: http
    http_port: 3000
    http_path: /rpc
  remote:
    server_json: server.json
  templ:
    server_json: templ.json
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][3]any{
		"web":    {"http", 3000, "/rpc"},
		"remote": {"http", 9123, "/api/mcp"},
		"templ":  {"http", 0, ""}, // {port}: the defaults apply
	} {
		s := cfg.Server(name)
		if got := [3]any{s.Transport, s.HTTPPort, s.HTTPPath}; got != want {
			t.Errorf("%s: transport %v, want %v", name, got, want)
		}
	}
	for _, bad := range []string{"transport: grpc", "http_port: 70000"} {
		_, err := Parse(filepath.Join(dir, "mcp-audit.yml"), []byte("servers:\n  x:\n    target: npm:x\n    "+bad+"\n"))
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s accepted: %v", bad, err)
		}
	}
}

func TestServerJSONImage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"name": "io.example/img", "version": "1.3.0",
  "packages": [{"registryType": "oci", "identifier": "registry.example/team/server", "version": "1.3.0",
    "environmentVariables": [{"name": "API_KEY", "isSecret": true}]}]}`), 0o644)
	cfg, err := Parse(filepath.Join(dir, "mcp-audit.yml"), []byte("servers:\n  img:\n    server_json: server.json\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server("img")
	if s.Target != "oci:registry.example/team/server:1.3.0" || s.Spec.Kind != "oci" || s.PackageName() != "registry.example/team/server" ||
		len(s.CanaryEnv) != 1 || s.Version != "" {
		t.Errorf("image from server.json: %+v", s)
	}
}
