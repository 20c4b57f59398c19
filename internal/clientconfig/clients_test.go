package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocations(t *testing.T) {
	getenv := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name string
		env  Env
		want []string // client scope path, home written ~ and project P
	}{
		{"macOS", Env{Home: "/Users/a", Dir: "/Users/a/p", OS: "darwin"}, []string{
			"claude-desktop user ~/Library/Application Support/Claude/claude_desktop_config.json",
			"claude-code user ~/.claude.json", "claude-code project P/.mcp.json",
			"cursor user ~/.cursor/mcp.json", "cursor project P/.cursor/mcp.json",
			"vscode user ~/Library/Application Support/Code/User/mcp.json",
			"vscode user ~/Library/Application Support/Code/User/settings.json",
			"vscode user ~/Library/Application Support/Code - Insiders/User/mcp.json",
			"vscode user ~/Library/Application Support/Code - Insiders/User/settings.json",
			"vscode project P/.vscode/mcp.json", "vscode project P/.vscode/settings.json",
			"windsurf user ~/.codeium/windsurf/mcp_config.json",
			"gemini user ~/.gemini/settings.json", "gemini project P/.gemini/settings.json",
			"codex user ~/.codex/config.toml", "codex project P/.codex/config.toml",
			"zed user ~/.config/zed/settings.json", "zed project P/.zed/settings.json",
			"continue user ~/.continue/config.yaml", "continue user ~/.continue/config.json",
			"cline user ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"copilot-cli user ~/.copilot/mcp-config.json",
		}},
		{"Linux with XDG and CODEX_HOME, no project", Env{Home: "/home/a", OS: "linux",
			Getenv: getenv(map[string]string{"XDG_CONFIG_HOME": "/home/a/xdg", "CODEX_HOME": "/home/a/cx"})}, []string{
			"claude-desktop user ~/xdg/Claude/claude_desktop_config.json",
			"claude-code user ~/.claude.json", "cursor user ~/.cursor/mcp.json",
			"vscode user ~/xdg/Code/User/mcp.json", "vscode user ~/xdg/Code/User/settings.json",
			"vscode user ~/xdg/Code - Insiders/User/mcp.json", "vscode user ~/xdg/Code - Insiders/User/settings.json",
			"windsurf user ~/.codeium/windsurf/mcp_config.json", "gemini user ~/.gemini/settings.json",
			"codex user ~/cx/config.toml", "zed user ~/xdg/zed/settings.json",
			"continue user ~/.continue/config.yaml", "continue user ~/.continue/config.json",
			"cline user ~/xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"copilot-cli user ~/.copilot/mcp-config.json",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, l := range Locations(c.env) {
				p := l.Path
				if c.env.Dir != "" {
					p = strings.Replace(p, c.env.Dir, "P", 1)
				}
				got = append(got, l.Client+" "+l.Scope+" "+strings.Replace(p, c.env.Home, "~", 1))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestForFile(t *testing.T) {
	cases := map[string]string{
		"/x/claude_desktop_config.json": "claude-desktop " + formatMCPServers,
		"/h/.claude.json":               "claude-code " + formatClaudeJSON,
		"/p/.mcp.json":                  "claude-code " + formatMCPServers,
		"/p/.cursor/mcp.json":           "cursor " + formatMCPServers,
		"/p/.vscode/mcp.json":           "vscode " + formatVSCode,
		"/u/Code/User/settings.json":    "vscode " + formatVSCodeSettings,
		"/h/windsurf/mcp_config.json":   "windsurf " + formatMCPServers,
		"/h/.gemini/settings.json":      "gemini " + formatMCPServers,
		"/h/.codex/config.toml":         "codex " + formatCodex,
		"/h/.config/zed/settings.json":  "zed " + formatZed,
		"/h/.continue/config.yaml":      "continue " + formatContinueYAML,
		"/h/.continue/config.json":      "continue " + formatContinueJSON,
		"/tmp/servers.json":             " " + formatAny,
	}
	for path, want := range cases {
		l := ForFile(path)
		if got := l.Client + " " + l.Format; got != want {
			t.Errorf("ForFile(%s) = %s, want %s", path, got, want)
		}
	}
}

// read writes body to a file named name and reads it as that client's.
func read(t *testing.T, name, body string) (fileRead, *Problem) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return readFile(ForFile(p))
}

func TestMalformedFiles(t *testing.T) {
	cases := []struct {
		name, file, body string
		line             int
		msg              string
	}{
		{"TOML", ".codex/config.toml", "[mcp_servers.a]\ncommand = \"npx\"\nargs = [\"-y\",\n", 3, "not valid TOML"},
		{"YAML", ".continue/config.yaml", "mcpServers:\n\t- name: a\n", 2, "not valid YAML"},
		{"JSON array", ".mcp.json", "[1]", 1, "must hold an object"},
		{"too big", ".mcp.json", "{" + strings.Repeat(" ", MaxFileBytes) + "}", 0, "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, p := read(t, c.file, c.body)
			if p == nil || p.Line != c.line || !strings.Contains(p.Message, c.msg) {
				t.Errorf("problem %+v, want line %d containing %q", p, c.line, c.msg)
			}
			if p != nil && (strings.Contains(p.Message, "[]string") || strings.Contains(p.Message, "map[")) {
				t.Errorf("a Go type in the message: %s", p.Message)
			}
		})
	}
}

// TestBadEntrySkipped: one malformed server is reported with its line and
// the file's other servers are still read.
func TestBadEntrySkipped(t *testing.T) {
	cases := []struct {
		name, file, body string
		line             int
	}{
		{"JSON", ".mcp.json", `{"mcpServers": {
  "bad": {"command": "npx", "args": "-y pkg"},
  "good": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}}`, 2},
		{"TOML", ".codex/config.toml", "[mcp_servers.bad]\ncommand = \"npx\"\nargs = \"-y pkg\"\n\n[mcp_servers.good]\ncommand = \"npx\"\n", 3},
		{"YAML", ".continue/config.yaml", "mcpServers:\n  - name: bad\n    command: npx\n    args: {a: b}\n  - name: good\n    command: npx\n", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, p := read(t, c.file, c.body)
			if p != nil {
				t.Fatal(p)
			}
			if len(r.entries) != 1 || r.entries[0].name != "good" {
				t.Errorf("entries %+v, want only good", r.entries)
			}
			if len(r.problems) != 1 || r.problems[0].Line != c.line || !strings.Contains(r.problems[0].Message, "args") ||
				!strings.Contains(r.problems[0].Message, "list of strings") || r.problems[0].Server != "bad" {
				t.Errorf("problems %+v, want one on line %d about args", r.problems, c.line)
			}
		})
	}
}

func TestServerCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := range MaxServersPerFile + 5 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"s` + strings.Repeat("x", i%3) + itoa3(i) + `": {"command": "npx", "args": ["p"]}`)
	}
	b.WriteString("}}")
	r, _ := read(t, ".mcp.json", b.String())
	if len(r.entries) != MaxServersPerFile || len(r.problems) != 1 {
		t.Errorf("%d entries, %d problems; want %d and 1", len(r.entries), len(r.problems), MaxServersPerFile)
	}
}

func itoa3(i int) string {
	return string(rune('a'+i/676%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
}

func TestDiscoverContinueBlocks(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".continue", "mcpServers")
	if err := os.MkdirAll(filepath.Join(dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.yaml", "a.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, l := range Discover(Env{Home: home, OS: "linux"}) {
		got = append(got, filepath.Base(l.Path)+" "+l.Format)
	}
	if diff := cmp.Diff([]string{"a.json " + formatContinueJSON, "b.yaml " + formatContinueYAML}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
