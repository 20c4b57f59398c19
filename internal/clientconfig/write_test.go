package clientconfig

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

// TestWriteRoundTrip: what init writes parses with internal/config, each
// server pinned to the version audited, and holds no secret.
func TestWriteRoundTrip(t *testing.T) {
	e, root := fixtureHome(t)
	res := Scan(e, Discover(e))
	digest := "sha256:" + strings.Repeat("ab", 32)
	data, err := Write(res.Servers, WriteOptions{Dir: e.Dir, Home: e.Home, Versions: map[string]string{
		"fetch": "2025.4.7", "memory": "2025.8.4", "github": digest, "Browser-search": "0.0.41", "clock": "2025.1.0",
	}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "init.golden.yml", bytes.ReplaceAll(data, []byte(root), []byte("$ROOT")))
	for _, s := range fakeSecrets {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("mcp-audit.yml holds the secret %q", s)
		}
	}
	cfg, err := config.Parse(filepath.Join(e.Dir, config.DefaultFile), data)
	if err != nil {
		t.Fatalf("the written file does not parse: %v", err)
	}
	type srv struct {
		Target, Version, Range, Bin string
		Args, CanaryEnv             []string
	}
	got := map[string]srv{}
	for _, s := range cfg.Servers {
		got[s.Name] = srv{s.Target, s.Version, s.Range, s.Bin, s.Args, s.CanaryEnv}
	}
	want := map[string]srv{
		"filesystem":     {Target: "npm:@modelcontextprotocol/server-filesystem", Version: "2025.8.21", Args: []string{"{home}/Desktop"}},
		"github":         {Target: "oci:registry.example/github/github-mcp-server@" + digest, CanaryEnv: []string{"GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOOLSETS"}},
		"fetch":          {Target: "pypi:mcp-server-fetch@==2025.4.7"},
		"memory":         {Target: "npm:@modelcontextprotocol/server-memory", Version: "2025.8.4"},
		"Browser-search": {Target: "npm:@playwright/mcp", Version: "0.0.41"},
		"clock":          {Target: "pypi:mcp-time@==2025.1.0", Bin: "mcp-time-server", Args: []string{"--tz", "UTC"}},
		"keyed":          {Target: "npm:keyed-mcp", Version: "1.0.0", Args: []string{"--api-key", Redacted}},
		"py-tools":       {Target: "./tools/py", Args: []string{"--data", "{workspace}/data"}},
		"local-mcp":      {Target: filepath.Join(e.Home, "src", "mcp"), Args: []string{"--stdio"}},
		"context":        {Target: "npm:context-mcp", Version: "2.1.0", CanaryEnv: []string{"CONTEXT_API_KEY", "CONTEXT_SECRET", "LOG_LEVEL"}},
		"sandbox-escape": {Target: "oci:registry.example/tools/ops-mcp"},
		"notes":          {Target: "npm:notes-mcp", Version: "0.4.2", Args: []string{"--dir", "{workspace}/notes"}, CanaryEnv: []string{"NOTES_API_KEY"}},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, got[name], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("server %s (-want +got):\n%s", name, diff)
		}
	}
	for _, remote := range []string{"docs", "search", "hosted", "stream", "design", "Hub"} {
		if _, ok := got[remote]; ok {
			t.Errorf("remote server %s was written as a target", remote)
		}
		if !bytes.Contains(data, []byte(remote+" (remote)")) {
			t.Errorf("remote server %s is not listed in the comments", remote)
		}
	}
}

func TestWriteNothing(t *testing.T) {
	_, err := Write([]*Server{{Name: "r", Kind: KindRemote, Host: "mcp.example"}}, WriteOptions{})
	if !errors.Is(err, ErrNoServers) {
		t.Errorf("err = %v, want ErrNoServers", err)
	}
}

// TestWriteHostileNames: names and arguments from a cloned repository's
// file cannot add settings or servers to mcp-audit.yml.
func TestWriteHostileNames(t *testing.T) {
	r, _ := read(t, ".mcp.json", `{"mcpServers": {
  "a\nservers:\n  evil": {"command": "npx", "args": ["-y", "a@1.0.0", "x\"]\n    target: npm:evil"]},
  "../../etc/passwd": {"command": "npx", "args": ["-y", "b@1.0.0"]},
  "\u202eb": {"command": "npx", "args": ["-y", "c@1.0.0"]}}}`)
	var servers []*Server
	for _, en := range r.entries {
		servers = append(servers, resolve(Location{Path: "/f", Scope: ScopeUser}, en, Env{}).server)
	}
	nameServers(servers)
	data, err := Write(servers, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("/p/mcp-audit.yml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var names, targets []string
	for _, s := range cfg.Servers {
		names, targets = append(names, s.Name), append(targets, s.Target)
	}
	if diff := cmp.Diff([]string{"a-servers----evil", "b", "etc-passwd"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"npm:a", "npm:c", "npm:b"}, targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}
