package clientconfig

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Env is what discovery and path mapping depend on, injected so that
// tests never read the real home directory.
type Env struct {
	// Home is the user's home directory, Dir the project directory (the
	// working directory by default).
	Home string
	Dir  string
	// OS is a GOOS value: linux, darwin or windows.
	OS string
	// Getenv reads XDG_CONFIG_HOME, APPDATA, CODEX_HOME and COPILOT_HOME;
	// nil reads nothing.
	Getenv func(string) string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Formats of configuration files: which keys hold the servers.
const (
	formatMCPServers     = "mcpServers"      // {"mcpServers": {NAME: {...}}}
	formatClaudeJSON     = "claude.json"     // mcpServers and projects.PATH.mcpServers
	formatVSCode         = "vscode-mcp"      // {"servers": {...}, "inputs": [...]}
	formatVSCodeSettings = "vscode-settings" // {"mcp": {"servers": {...}}}
	formatZed            = "zed"             // {"context_servers": {...}}
	formatContinueJSON   = "continue-json"   // experimental.modelContextProtocolServers, mcpServers
	formatContinueYAML   = "continue-yaml"   // mcpServers: [{name: ...}]
	formatCodex          = "codex-toml"      // [mcp_servers.NAME]
	formatAny            = "any"             // a file named on the command line
)

// Location is one configuration file a client reads.
type Location struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Scope  string `json:"scope"`
	Format string `json:"format"`
	// Dir is the project a project-level file belongs to: where its
	// relative paths start and what {workspace} stands for.
	Dir string `json:"dir,omitempty"`
}

// Client is an MCP client whose configuration files are known.
type Client struct {
	ID   string
	Name string
	// JSONC: the client's reader accepts comments and trailing commas.
	JSONC bool
	files func(e Env) []Location
}

// configDir is the OS's per-user configuration directory, as VS Code and
// Claude Desktop use it.
func (e Env) configDir() string {
	switch e.OS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	}
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

// xdgConfig is ~/.config (or XDG_CONFIG_HOME on Linux), which Zed uses on
// macOS too.
func (e Env) xdgConfig() string {
	if d := e.getenv("XDG_CONFIG_HOME"); e.OS == "linux" && d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

func (e Env) homeOr(envVar string, parts ...string) string {
	if d := e.getenv(envVar); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(append([]string{e.Home}, parts...)...)
}

func loc(client, scope, format string, parts ...string) Location {
	return Location{Client: client, Path: filepath.Join(parts...), Scope: scope, Format: format}
}

// Clients lists the clients whose files are found, with their documented
// locations (docs/scan.md says which were verified where).
var Clients = []Client{
	{ID: "claude-desktop", Name: "Claude Desktop", files: func(e Env) []Location {
		return []Location{loc("claude-desktop", ScopeUser, formatMCPServers, e.configDir(), "Claude", "claude_desktop_config.json")}
	}},
	{ID: "claude-code", Name: "Claude Code", files: func(e Env) []Location {
		return []Location{
			loc("claude-code", ScopeUser, formatClaudeJSON, e.Home, ".claude.json"),
			loc("claude-code", ScopeProject, formatMCPServers, e.Dir, ".mcp.json"),
		}
	}},
	{ID: "cursor", Name: "Cursor", files: func(e Env) []Location {
		return []Location{
			loc("cursor", ScopeUser, formatMCPServers, e.Home, ".cursor", "mcp.json"),
			loc("cursor", ScopeProject, formatMCPServers, e.Dir, ".cursor", "mcp.json"),
		}
	}},
	{ID: "vscode", Name: "VS Code", JSONC: true, files: vscodeFiles},
	{ID: "windsurf", Name: "Windsurf", files: func(e Env) []Location {
		return []Location{loc("windsurf", ScopeUser, formatMCPServers, e.Home, ".codeium", "windsurf", "mcp_config.json")}
	}},
	{ID: "gemini", Name: "Gemini CLI", JSONC: true, files: func(e Env) []Location {
		return []Location{
			loc("gemini", ScopeUser, formatMCPServers, e.Home, ".gemini", "settings.json"),
			loc("gemini", ScopeProject, formatMCPServers, e.Dir, ".gemini", "settings.json"),
		}
	}},
	{ID: "codex", Name: "Codex", files: func(e Env) []Location {
		return []Location{
			loc("codex", ScopeUser, formatCodex, e.homeOr("CODEX_HOME", ".codex"), "config.toml"),
			loc("codex", ScopeProject, formatCodex, e.Dir, ".codex", "config.toml"),
		}
	}},
	{ID: "zed", Name: "Zed", JSONC: true, files: func(e Env) []Location {
		dir := filepath.Join(e.xdgConfig(), "zed")
		if e.OS == "windows" {
			dir = filepath.Join(e.configDir(), "Zed")
		}
		return []Location{
			loc("zed", ScopeUser, formatZed, dir, "settings.json"),
			loc("zed", ScopeProject, formatZed, e.Dir, ".zed", "settings.json"),
		}
	}},
	{ID: "continue", Name: "Continue", files: func(e Env) []Location {
		return []Location{
			loc("continue", ScopeUser, formatContinueYAML, e.Home, ".continue", "config.yaml"),
			loc("continue", ScopeUser, formatContinueJSON, e.Home, ".continue", "config.json"),
		}
	}},
	{ID: "cline", Name: "Cline", files: func(e Env) []Location {
		return []Location{loc("cline", ScopeUser, formatMCPServers, e.configDir(), "Code", "User", "globalStorage",
			"saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")}
	}},
	{ID: "copilot-cli", Name: "GitHub Copilot CLI", files: func(e Env) []Location {
		return []Location{loc("copilot-cli", ScopeUser, formatMCPServers, e.homeOr("COPILOT_HOME", ".copilot"), "mcp-config.json")}
	}},
}

func vscodeFiles(e Env) []Location {
	var out []Location
	for _, product := range []string{"Code", "Code - Insiders"} {
		user := filepath.Join(e.configDir(), product, "User")
		out = append(out,
			loc("vscode", ScopeUser, formatVSCode, user, "mcp.json"),
			loc("vscode", ScopeUser, formatVSCodeSettings, user, "settings.json"))
	}
	return append(out,
		loc("vscode", ScopeProject, formatVSCode, e.Dir, ".vscode", "mcp.json"),
		loc("vscode", ScopeProject, formatVSCodeSettings, e.Dir, ".vscode", "settings.json"))
}

// ClientByID returns the client with that ID, or nil.
func ClientByID(id string) *Client {
	for i := range Clients {
		if Clients[i].ID == id {
			return &Clients[i]
		}
	}
	return nil
}

// Locations lists every documented location for env, whether the file
// exists or not; a path two clients share is listed once, for the first.
// Continue's block directories are not listed: Discover lists their files.
func Locations(e Env) []Location {
	var out []Location
	seen := map[string]bool{}
	for _, c := range Clients {
		for _, l := range c.files(e) {
			if (l.Scope == ScopeProject && e.Dir == "") || seen[l.Path] {
				continue
			}
			seen[l.Path] = true
			if l.Scope == ScopeProject {
				l.Dir = e.Dir
			}
			out = append(out, l)
		}
	}
	return out
}

// maxBlockFiles bounds the files read from one Continue block directory.
const maxBlockFiles = 64

// Discover lists the locations whose file exists: the documented files
// and the YAML and JSON files of Continue's block directories
// (~/.continue/mcpServers and .continue/mcpServers of the project).
func Discover(e Env) []Location {
	var out []Location
	for _, l := range Locations(e) {
		if st, err := os.Stat(l.Path); err == nil && st.Mode().IsRegular() {
			out = append(out, l)
		}
	}
	out = append(out, continueBlocks(filepath.Join(e.Home, ".continue", "mcpServers"), ScopeUser, "")...)
	if e.Dir != "" {
		out = append(out, continueBlocks(filepath.Join(e.Dir, ".continue", "mcpServers"), ScopeProject, e.Dir)...)
	}
	return out
}

func continueBlocks(dir, scope, project string) []Location {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Location
	for _, ent := range entries {
		name := ent.Name()
		format := ""
		switch strings.ToLower(filepath.Ext(name)) {
		case ".yaml", ".yml":
			format = formatContinueYAML
		case ".json":
			format = formatContinueJSON
		}
		if format == "" || !ent.Type().IsRegular() {
			continue
		}
		out = append(out, Location{Client: "continue", Path: filepath.Join(dir, name), Scope: scope, Format: format, Dir: project})
		if len(out) == maxBlockFiles {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
