package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

// TestInit: the written mcp-audit.yml holds every server that can be
// audited, with the configured variable names as canary_env and no value
// of the client files; the version that passed is recorded as a baseline
// where check looks for it, the failing one is refused with its harmful
// findings named, and remote and unrecognised servers are listed in a
// comment only.
func TestInit(t *testing.T) {
	mc := newMachine(t, false)
	res, _ := mc.scan(t, true)
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp-audit.yml")
	in, err := Init(res, path, mc.env.Home)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			t.Errorf("mcp-audit.yml holds %s", s)
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Server("good") == nil || cfg.Server("bad") == nil {
		t.Fatalf("servers %+v, want good and bad", cfg.Servers)
	}
	if got := strings.Join(cfg.Server("good").CanaryEnv, ","); got != "DB_PASSWORD,GITHUB_TOKEN,LOG_LEVEL" {
		t.Errorf("canary_env %s", got)
	}
	for _, w := range []string{"docs (remote)", "weird (unrecognised)"} {
		if !strings.Contains(string(data), w) {
			t.Errorf("mcp-audit.yml does not list %s:\n%s", w, data)
		}
	}
	if len(in.Baselines) != 1 || len(in.Refused) != 1 || !strings.HasPrefix(in.Refused[0], "bad: harmful findings") ||
		!strings.Contains(in.Refused[0], "canary") {
		t.Fatalf("baselines %v, refused %v", in.Baselines, in.Refused)
	}
	if v, err := baseline.Newest(cfg.BaselineDir(), "local", "good-server"); v != "1.0.0" {
		t.Errorf("the good server's baseline: %q, %v", v, err)
	}
	if v, _ := baseline.Newest(cfg.BaselineDir(), "local", "bad-server"); v != "" {
		t.Errorf("the failing version %s was recorded", v)
	}
}

// TestInitPins: a registry server is written at the version its audit
// resolved, not the range it is configured with; one whose audit is
// incomplete gets no baseline.
func TestInitPins(t *testing.T) {
	srv := &clientconfig.Server{Name: "memory", Kind: clientconfig.KindNPM, Package: "@modelcontextprotocol/server-memory",
		Version: "latest", Sources: []clientconfig.Source{{Client: "cursor", Path: "/h/.cursor/mcp.json", Line: 3, Name: "memory"}}}
	res := &Result{Plan: &Plan{Scan: &clientconfig.Result{Servers: []*clientconfig.Server{srv}}},
		Reports: []report.DiffReport{{Server: "memory"}}, Audited: map[string]Audited{"memory": {Version: "2026.8.31", Verdict: m.VerdictIncomplete}}}
	path := filepath.Join(t.TempDir(), "mcp-audit.yml")
	in, err := Init(res, path, "/h")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Server("memory"); s == nil || s.Version != "2026.8.31" || s.Range != "" {
		t.Errorf("memory: %+v, want version 2026.8.31", s)
	}
	if len(in.Baselines) != 0 || len(in.NotRecorded) != 1 || !strings.Contains(in.NotRecorded[0], "incomplete") {
		t.Errorf("baselines %v, not recorded %v", in.Baselines, in.NotRecorded)
	}
}
