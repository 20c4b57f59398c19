package policy

import (
	"path"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// A server keeps its own data somewhere: ~/.okx/logs for okx-trade-mcp,
// ~/.cache/chrome-devtools-mcp for chrome-devtools-mcp, a config file in
// ~/.claude-server-commander for desktop-commander. What it writes there
// is its business, not another program's configuration. It is recognized
// by the place's name, the directory that owns the path (the first below
// the home, the workspace or an XDG base directory), against the names
// the server goes by: its package, its server name and its entry file.

// xdgBases are the directories whose children are per-program
// directories (XDG base directories, and their usual macOS kin).
var xdgBases = []string{".config", ".local/share", ".local/state", ".local/lib", ".cache", "Library/Application Support",
	"Library/Caches", "Library/Preferences"}

// genericTokens are words too common in names to tie a directory to one
// server: a server called "claude-notes" does not own ~/.claude-tools.
var genericTokens = map[string]bool{
	"mcp": true, "server": true, "servers": true, "client": true, "claude": true, "desktop": true, "code": true,
	"cli": true, "app": true, "apps": true, "tool": true, "tools": true, "node": true, "npm": true, "js": true,
	"ts": true, "api": true, "data": true, "config": true, "cache": true, "local": true, "share": true, "state": true,
	"lib": true, "core": true, "dev": true, "plugin": true, "plugins": true, "extension": true, "extensions": true,
	"hooks": true, "bin": true, "model": true, "context": true, "protocol": true, "assistant": true, "agent": true,
	"agents": true, "ai": true, "gpt": true, "openai": true, "anthropic": true, "cursor": true, "vscode": true,
	"official": true, "open": true, "remote": true, "auth": true, "web": true, "http": true, "https": true,
	"stdio": true, "sdk": true, "kit": true, "service": true, "main": true, "index": true, "build": true,
	"dist": true, "src": true, "run": true, "example": true, "examples": true, "test": true, "demo": true,
	"proxy": true, "modelcontextprotocol": true, "git": true, "github": true, "google": true, "microsoft": true,
	"the": true, "and": true, "for": true, "helper": true, "utils": true, "common": true, "shared": true,
}

// tokens splits a name into its lower-case words of letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// ownTokens are the distinctive words of the names the server goes by.
func ownTokens(man *m.Manifest) map[string]bool {
	names := []string{man.Server.Name}
	if n := man.Target.Name; n != "" {
		names = append(names, n[strings.LastIndexByte(n, '/')+1:]) // the package without its scope
	}
	for _, a := range man.Target.Entry {
		if strings.HasPrefix(a, "<pkg>/") {
			b := path.Base(a)
			names = append(names, strings.TrimSuffix(b, path.Ext(b)))
		}
	}
	out := map[string]bool{}
	for _, n := range names {
		for _, t := range tokens(n) {
			if len(t) >= 3 && !genericTokens[t] {
				out[t] = true
			}
		}
	}
	return out
}

// appDir is the directory that owns a normalized home or workspace path:
// the first component below the home, the workspace or an XDG base
// directory ("~/.config/foo/plugins/x" → ".config/foo" → "foo"), with
// what follows it; ok is false for other paths and for the bases
// themselves.
func appDir(norm string) (dir, rest string, ok bool) {
	var p string
	switch {
	case strings.HasPrefix(norm, "~/"):
		p = strings.TrimPrefix(norm, "~/")
		for _, b := range xdgBases {
			if q, found := strings.CutPrefix(p, b+"/"); found {
				p = q
				break
			}
		}
	case strings.HasPrefix(norm, "<workspace>/"):
		p = strings.TrimPrefix(norm, "<workspace>/")
	default:
		return "", "", false
	}
	dir, rest, _ = strings.Cut(p, "/")
	return dir, rest, dir != ""
}

// ownData reports a path in a directory named after the server: one of
// its distinctive words is one of the directory's.
func ownData(own map[string]bool, norm string) bool {
	dir, _, ok := appDir(norm)
	if !ok {
		return false
	}
	for _, t := range tokens(dir) {
		if own[t] {
			return true
		}
	}
	return false
}
