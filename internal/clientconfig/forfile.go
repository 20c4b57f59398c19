package clientconfig

import (
	"path/filepath"
	"strings"
)

// ForFile is the location of a file named by the user: the client whose
// documented file it is (by its name and directory), else a reader that
// accepts every known layout.
func ForFile(path string) Location {
	base := filepath.Base(path)
	parent := filepath.Base(filepath.Dir(path))
	l := Location{Client: "", Path: path, Scope: ScopeUser, Format: formatAny}
	set := func(client, scope, format string) Location {
		l.Client, l.Scope, l.Format = client, scope, format
		return l
	}
	// A project-level file: its project is the directory holding .mcp.json,
	// or the one above .cursor, .vscode, .gemini, .codex, .zed, .continue.
	project := func(client, format string) Location {
		l = set(client, ScopeProject, format)
		l.Dir = filepath.Dir(path)
		if base != ".mcp.json" {
			l.Dir = filepath.Dir(l.Dir)
		}
		return l
	}
	switch {
	case base == "claude_desktop_config.json":
		return set("claude-desktop", ScopeUser, formatMCPServers)
	case base == ".claude.json":
		return set("claude-code", ScopeUser, formatClaudeJSON)
	case base == ".mcp.json":
		return project("claude-code", formatMCPServers)
	case base == "mcp.json" && parent == ".cursor":
		return set("cursor", ScopeUser, formatMCPServers)
	case base == "mcp.json" && parent == ".vscode":
		return project("vscode", formatVSCode)
	case base == "mcp.json" && parent == "User":
		return set("vscode", ScopeUser, formatVSCode)
	case base == "settings.json" && parent == ".vscode":
		return project("vscode", formatVSCodeSettings)
	case base == "settings.json" && parent == "User":
		return set("vscode", ScopeUser, formatVSCodeSettings)
	case base == "mcp_config.json":
		return set("windsurf", ScopeUser, formatMCPServers)
	case base == "settings.json" && parent == ".gemini":
		return set("gemini", ScopeUser, formatMCPServers)
	case base == "settings.json" && parent == ".zed":
		return project("zed", formatZed)
	case base == "settings.json" && (parent == "zed" || parent == "Zed"):
		return set("zed", ScopeUser, formatZed)
	case base == "config.toml" || strings.HasSuffix(base, ".toml"):
		return set("codex", ScopeUser, formatCodex)
	case parent == ".continue" && base == "config.json":
		return set("continue", ScopeUser, formatContinueJSON)
	case strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"):
		return set("continue", ScopeUser, formatContinueYAML)
	}
	return l
}
