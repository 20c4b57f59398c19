package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestServerJSONPyPI: a server.json whose package has registryType pypi
// becomes a pypi: target pinned to its version.
func TestServerJSONPyPI(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"name":"io.example/weather","packages":[
  {"registryType":"pypi","identifier":"weather-mcp","version":"0.4.1",
   "environmentVariables":[{"name":"WEATHER_API_KEY","isSecret":true}]}]}`), 0o644)
	cfg, err := Parse(filepath.Join(dir, "mcp-audit.yml"), []byte("servers:\n  weather:\n    server_json: server.json\n  direct:\n    target: pypi:other-mcp@~=1.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := cfg.Server("weather")
	if w.Target != "pypi:weather-mcp@==0.4.1" || w.Spec.Kind != "pypi" || w.Spec.Range != "==0.4.1" || len(w.CanaryEnv) != 1 {
		t.Errorf("weather %+v", w)
	}
	if d := cfg.Server("direct"); d.Spec.Kind != "pypi" || d.Spec.Name != "other-mcp" {
		t.Errorf("direct %+v", d.Spec)
	}
}
