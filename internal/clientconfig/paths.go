package clientconfig

import (
	"path"
	"path/filepath"
	"strings"
)

// Placeholders mcp-audit.yml expands to the sandbox's decoy directories.
const (
	Workspace = "{workspace}"
	Home      = "{home}"
)

// pathVars are the ways clients spell the project and home directories
// in arguments: VS Code and Cursor (${workspaceFolder}, ${userHome}),
// Claude Code and shells (${HOME}, $HOME), Windows (%USERPROFILE%).
var pathVars = []struct{ spelling, placeholder string }{
	{"${workspaceFolder}", Workspace}, {"${workspaceRoot}", Workspace}, {"${CLAUDE_PROJECT_DIR}", Workspace},
	{"${PWD}", Workspace}, {"$PWD", Workspace},
	{"${userHome}", Home}, {"${env:HOME}", Home}, {"${env:USERPROFILE}", Home}, {"${HOME}", Home},
	{"$HOME", Home}, {"%USERPROFILE%", Home}, {"%HOMEPATH%", Home},
}

// pather maps host paths in arguments to placeholders.
type pather struct {
	home, dir string // slash-separated, no trailing slash
	cwd       string // where relative paths start ("" unknown)
	windows   bool
}

func newPather(e Env, cwd string) pather {
	p := pather{windows: e.OS == "windows"}
	clean := func(s string) string {
		if s == "" {
			return ""
		}
		return strings.TrimSuffix(path.Clean(p.slash(s)), "/")
	}
	p.home, p.dir, p.cwd = clean(e.Home), clean(e.Dir), clean(cwd)
	return p
}

// slash writes a path with forward slashes (Windows paths too, on any
// host: the file may come from another machine).
func (p pather) slash(s string) string {
	if p.windows || isWinAbs(s) {
		s = strings.ReplaceAll(s, `\`, "/")
	}
	return filepath.ToSlash(s)
}

// arg maps one argument: a host path, or the value of --flag=PATH. It
// reports whether the argument is a host path outside the home and the
// project (kept as written).
func (p pather) arg(a string) (string, bool) {
	if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
		v, outside := p.path(value)
		return name + "=" + v, outside
	}
	return p.path(a)
}

func (p pather) path(a string) (string, bool) {
	for _, v := range pathVars {
		if strings.HasPrefix(a, v.spelling) && (len(a) == len(v.spelling) || a[len(v.spelling)] == '/' || a[len(v.spelling)] == '\\') {
			return v.placeholder + p.slash(a[len(v.spelling):]), false
		}
	}
	switch {
	case a == "~":
		return Home, false
	case strings.HasPrefix(a, "~/"):
		return Home + a[1:], false
	case !isPathLike(a) && a != "." && a != "..":
		return a, false
	}
	abs := p.slash(a)
	if !strings.HasPrefix(abs, "/") && !isWinAbs(abs) {
		if p.cwd == "" {
			return a, false
		}
		abs = path.Join(p.cwd, abs)
	}
	abs = path.Clean(abs)
	for _, base := range []struct{ dir, placeholder string }{{p.dir, Workspace}, {p.home, Home}} {
		if rel, ok := p.under(abs, base.dir); ok {
			return base.placeholder + rel, false
		}
	}
	return a, true
}

// under reports abs's path below dir ("" for dir itself, "/x" below).
func (p pather) under(abs, dir string) (string, bool) {
	if dir == "" || dir == "/" {
		return "", false
	}
	a, d := abs, dir
	if p.windows {
		a, d = strings.ToLower(a), strings.ToLower(d)
	}
	if a == d {
		return "", true
	}
	if strings.HasPrefix(a, d+"/") {
		return abs[len(dir):], true
	}
	return "", false
}

// local resolves a local server's path on the host: ~ and the home
// spellings expanded, relative paths joined to the working directory.
// It reports false when a relative path has no known base.
func (p pather) local(s string) (string, bool) {
	for _, v := range pathVars {
		if strings.HasPrefix(s, v.spelling) {
			base := p.home
			if v.placeholder == Workspace {
				base = p.dir
			}
			if base == "" {
				return s, false
			}
			return filepath.FromSlash(path.Join(base, filepath.ToSlash(s[len(v.spelling):]))), true
		}
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		return filepath.FromSlash(path.Join(p.home, s[1:])), p.home != ""
	}
	slash := filepath.ToSlash(s)
	if strings.HasPrefix(slash, "/") || isWinAbs(slash) {
		return s, true
	}
	if p.cwd == "" {
		return s, false
	}
	return filepath.FromSlash(path.Join(p.cwd, slash)), true
}
