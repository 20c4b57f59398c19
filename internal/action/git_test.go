package action

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestChangedServers(t *testing.T) {
	base := "servers:\n  a:\n    target: npm:a\n    version: 1.0.0\n  b:\n    target: npm:b\n    version: 2.0.0\n  c:\n    target: npm:c\n"
	head := "servers:\n  a:\n    target: npm:a\n    version: 1.0.1\n  b:\n    target: npm:b\n    version: 2.0.0\n  c:\n    target: npm:c\n  d:\n    target: npm:d\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": base, "baselines/npm/c/1.0.0.json": "{}"},
		map[string]string{"mcp-audit.yml": head, "baselines/npm/c/1.0.0.json": "{\"x\":1}"})
	cfg := mustLoad(t, filepath.Join(ws, "mcp-audit.yml"))
	first := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	got, _ := changedServers(ws, "mcp-audit.yml", first, cfg)
	if strings.Join(got, ",") != "a,c,d" {
		t.Errorf("changed %v, want a (version), c (baseline), d (new)", got)
	}
	got, why := changedServers(ws, "mcp-audit.yml", "", cfg)
	if len(got) != 4 || !strings.Contains(why, "no base") {
		t.Errorf("without a base every server: %v %s", got, why)
	}
}

// TestChangedServersScopedBaseline: a scoped package's baselines sit one
// directory deeper (npm/@scope/name/VERSION.json).
func TestChangedServersScopedBaseline(t *testing.T) {
	cfgText := "servers:\n  s:\n    target: npm:@acme/s\n    version: 1.0.0\n  t:\n    target: npm:t\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfgText, "baselines/npm/@acme/s/1.0.0.json": "{}"},
		map[string]string{"baselines/npm/@acme/s/1.0.0.json": "{\"x\":1}"})
	first := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	got, _ := changedServers(ws, "mcp-audit.yml", first, mustLoad(t, filepath.Join(ws, "mcp-audit.yml")))
	if strings.Join(got, ",") != "s" {
		t.Errorf("changed %v, want s", got)
	}
}
