package clientconfig

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeSecrets are the values planted in the fixtures: none may leave the
// package.
var fakeSecrets = []string{
	"ghp_0000000000000000000000000000000000fake", "live0000000000000000fake", "sk-proj-0000000000000000000000fake",
	"hosted0000000000fake", "stream0000000000fake", "codex0000000000fake", "zed0000000000fake",
	"cline0000000000fake", "copilot0000000000fake",
}

// fixtureHome copies testdata/scan to a temporary directory, writing its
// home wherever the fixtures say /Users/alice, and returns the Env of a
// macOS user working in ~/work/proj.
func fixtureHome(t *testing.T) (Env, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	err := filepath.WalkDir("testdata/scan", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/scan", p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, bytes.ReplaceAll(b, []byte("/Users/alice"), []byte(home)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return Env{Home: home, Dir: filepath.Join(home, "work", "proj"), OS: "darwin"}, root
}

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; rewrite with -update):\n%s", name, diff)
	}
}

func TestScanFixtures(t *testing.T) {
	e, root := fixtureHome(t)
	res := Scan(e, Discover(e))
	out, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = bytes.ReplaceAll(out, []byte(root), []byte("$ROOT"))
	golden(t, "scan.golden.json", append(out, '\n'))
	for _, s := range fakeSecrets {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("the scan result holds the secret %q", s)
		}
	}
	// Every file read, the malformed one reported with its line, the
	// others' servers kept.
	if len(res.Files) != 19 {
		t.Errorf("%d files read, want 19", len(res.Files))
	}
	var broken *Problem
	for i, p := range res.Problems {
		if strings.HasSuffix(p.Path, filepath.Join("proj", ".gemini", "settings.json")) {
			broken = &res.Problems[i]
		}
	}
	if broken == nil || broken.Line != 5 || !strings.Contains(broken.Message, "expected a comma") {
		t.Errorf("the malformed Gemini file: %+v, want line 5, a missing comma", broken)
	}
}

func TestScanDeduplicates(t *testing.T) {
	e, _ := fixtureHome(t)
	res := Scan(e, Discover(e))
	by := map[string]*Server{}
	for _, s := range res.Servers {
		by[s.Name] = s
	}
	// Claude Desktop's /Users/alice/Desktop and .mcp.json's ${HOME}/Desktop
	// are the same server: audited once, both places listed.
	fsrv := by["filesystem"]
	if fsrv == nil || len(fsrv.Sources) != 2 || fsrv.Sources[0].Client != "claude-desktop" || fsrv.Sources[1].Client != "claude-code" {
		t.Fatalf("filesystem: %+v, want one server from Claude Desktop and Claude Code", fsrv)
	}
	if by["filesystem-2"] != nil || by["filesystem-claude-code"] != nil {
		t.Error("the same filesystem server is listed twice")
	}
	// The GitHub image, in Claude Desktop and VS Code, takes both files'
	// variable names.
	gh := by["github"]
	if gh == nil || len(gh.Sources) != 2 || !cmp.Equal(gh.Env, []string{"GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOOLSETS"}) {
		t.Errorf("github: %+v", gh)
	}
	// Cursor's and Continue's memory server are one; both are @latest.
	if m := by["memory"]; m == nil || len(m.Sources) != 2 {
		t.Errorf("memory: %+v", m)
	}
}

// TestScanControl: a file of servers written without secrets, shells or
// docker flags gets no warning but the ones it earns.
func TestScanControl(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "claude_desktop_config.json")
	body := `{"mcpServers": {"mem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2025.8.4"],
	  "env": {"MEMORY_FILE_PATH": "/srv/memory.json", "GITHUB_TOKEN": "${GITHUB_TOKEN}", "API_KEY": "<your key>"}},
	  "img": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "TOKEN", "-v", "cache:/cache", "img@sha256:` + strings.Repeat("0", 64) + `"]}}}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Scan(Env{Home: dir, OS: "linux"}, []Location{ForFile(p)})
	if len(res.Warnings) != 0 || len(res.Problems) != 0 || len(res.Servers) != 2 {
		t.Errorf("warnings %v, problems %v, %d servers; want none, none, 2", res.Warnings, res.Problems, len(res.Servers))
	}
}

// TestTargetsParse: every mapped server's Target is one the audit takes.
func TestTargetsParse(t *testing.T) {
	e, _ := fixtureHome(t)
	n := 0
	for _, s := range Scan(e, Discover(e)).Servers {
		if s.Kind == KindRemote || s.Kind == KindUnrecognised {
			continue
		}
		n++
		spec, err := target.ParseSpec(s.Target())
		if err != nil {
			t.Errorf("server %s: target %q: %v", s.Name, s.Target(), err)
			continue
		}
		if s.Kind != KindLocal && spec.Kind != s.Kind {
			t.Errorf("server %s: %q parses as %s", s.Name, s.Target(), spec.Kind)
		}
	}
	if n < 15 {
		t.Errorf("only %d servers checked", n)
	}
}

func TestWarningsFor(t *testing.T) {
	e, _ := fixtureHome(t)
	res := Scan(e, Discover(e))
	for _, s := range res.Servers {
		if s.Name != "sandbox-escape" {
			continue
		}
		kinds := map[string]bool{}
		for _, w := range res.WarningsFor(s) {
			kinds[w.Kind] = true
		}
		for _, k := range []string{WarnUnpinned, WarnPrivileged, WarnHostNamespace, WarnDockerSocket, WarnHostMount} {
			if !kinds[k] {
				t.Errorf("sandbox-escape has no %s warning: %v", k, kinds)
			}
		}
		return
	}
	t.Fatal("no sandbox-escape server")
}

// TestNamedProjectFile: a project file named on the command line maps
// paths against its own project, not the working directory.
func TestNamedProjectFile(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "repo")
	p := filepath.Join(proj, ".vscode", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{"servers": {"fs": {"command": "npx", "args": ["-y", "fs-mcp@1.0.0", "./docs", "` + proj + `/src"]}}}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Scan(Env{Home: "/nonexistent-home", Dir: "/elsewhere", OS: "linux"}, []Location{ForFile(p)})
	if len(res.Servers) != 1 || !cmp.Equal(res.Servers[0].Args, []string{"{workspace}/docs", "{workspace}/src"}) {
		t.Errorf("servers %+v, want args in {workspace}", res.Servers)
	}
}
