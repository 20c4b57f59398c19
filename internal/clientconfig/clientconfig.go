// Package clientconfig reads the MCP servers people already run from their
// clients' configuration files (Claude Desktop, Claude Code, Cursor, VS
// Code, Windsurf, Gemini CLI, Codex, Zed, Continue, …), maps each server's
// command to an audit target (npm, PyPI, OCI image, local path), warns
// about what a user needs to know (unpinned versions, shells, secrets in
// clear, dangerous docker flags), and writes an mcp-audit.yml pinning each
// server to the version audited. docs/scan.md documents the clients, the
// mapping and the warnings.
//
// A configuration file is hostile input (a project's .mcp.json or
// .vscode/mcp.json comes with whatever repository was cloned): reads are
// bounded, and no value of an environment variable or header ever leaves
// the package, not even in an error or warning.
package clientconfig

import (
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// Kinds of servers.
const (
	KindNPM          = "npm"
	KindPyPI         = "pypi"
	KindOCI          = "oci"
	KindLocal        = "local"
	KindRemote       = "remote"
	KindUnrecognised = "unrecognised"
)

// Scopes of a configuration file.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Server is one server to audit, deduplicated across files: the same
// target, executable and arguments configured twice are one Server with
// two Sources.
type Server struct {
	// Name is unique among the servers of one Result and usable as a key
	// of mcp-audit.yml: the name a client gave it, made safe, with a suffix
	// when two different servers share a name.
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Package is the npm or PyPI package, or the image repository.
	Package string `json:"package,omitempty"`
	// Version as configured: an npm version, range or dist-tag, a PyPI
	// specifier such as ==1.0, an image tag or digest; "" when none.
	Version string `json:"version,omitempty"`
	// Bin is the executable of the package to run when it is not the
	// default one (npx -p pkg cmd, uvx --from pkg cmd).
	Bin string `json:"bin,omitempty"`
	// Args are the server's arguments, host paths written {workspace} or
	// {home}, secrets replaced by Redacted.
	Args []string `json:"args,omitempty"`
	// Env names the variables the server is given (never their values):
	// an audit fills them with canaries.
	Env []string `json:"env,omitempty"`
	// Local is the host path of a local server (a script or directory).
	Local string `json:"local,omitempty"`
	// Host and Transport describe a remote server: the URL's host (and
	// port) only, and "http" or "sse".
	Host      string `json:"host,omitempty"`
	Transport string `json:"transport,omitempty"`
	// URL is where a surface audit (internal/remote) contacts a remote
	// server: scheme, host and path, without user, password, query or
	// fragment, since those can hold keys and nothing of a client file's
	// credentials is sent. It is "" when the path itself looks like it
	// holds a key or names a variable; Reason then says why. It is never
	// written out (JSON, mcp-audit.yml, reports show Host only).
	URL    string `json:"-"`
	urlKey string // host and path, to tell servers apart
	// Command is the program of an unrecognised server, Reason why it was
	// not mapped (for a remote server: why it is not contacted).
	Command string `json:"command,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Disabled: every source turns the server off.
	Disabled bool     `json:"disabled,omitempty"`
	Sources  []Source `json:"sources,omitempty"`
}

// Source is where a server is configured.
type Source struct {
	Client string `json:"client"` // a Client ID
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	// Name is the server's name in that file.
	Name  string `json:"name"`
	Scope string `json:"scope"`
	// Project is the project directory a user-level file configures the
	// server for (Claude Code's local scope in ~/.claude.json).
	Project string `json:"project,omitempty"`
}

// Redacted replaces an argument that looks like a secret.
const Redacted = "REDACTED-BY-MCP-AUDIT"

// Target is the audit target of an npm, PyPI, OCI or local server, in the
// form target.ParseSpec reads (npm:NAME@RANGE, pypi:NAME@SPEC,
// oci:IMAGE[:TAG|@DIGEST], a directory); "" for remote and unrecognised
// ones, and for a local server whose package directory (Local itself, or
// the nearest directory above it with package.json, pyproject.toml or
// setup.py) is not found on this machine.
func (s *Server) Target() string {
	switch s.Kind {
	case KindNPM, KindPyPI, KindOCI:
		return target.EcosystemNamed(s.Kind).SpecAt(s.Package, s.Version)
	case KindLocal:
		dir, _ := localRoot(s.Local)
		return dir
	}
	return ""
}

// Warning is something a user needs to know about a configured server or
// file. Message is in the user's words and never holds a secret's value.
type Warning struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Server string `json:"server,omitempty"` // the server's name in the file, "" for the file
	// Entry is the line of the server's entry (Line may be one of its
	// settings): with Path, it finds the Source (see Result.WarningsFor).
	Entry   int    `json:"entry,omitempty"`
	Message string `json:"message"`
}

// Warning kinds.
const (
	WarnUnpinned      = "unpinned"
	WarnShell         = "shell"
	WarnSecret        = "secret-in-clear"
	WarnPrivileged    = "docker-privileged"
	WarnHostMount     = "host-mount"
	WarnDockerSocket  = "docker-socket"
	WarnHostNamespace = "host-namespace"
	WarnCapability    = "capability-added"
	WarnUnknownPkg    = "unknown-package"
	WarnSyntax        = "client-syntax"
	WarnNote          = "note"
)

// String is the warning as one line: FILE:LINE: server NAME: message.
func (w Warning) String() string {
	var b strings.Builder
	b.WriteString(w.Path)
	if w.Line > 0 {
		b.WriteString(":" + strconv.Itoa(w.Line))
	}
	b.WriteString(": ")
	if w.Server != "" {
		b.WriteString("server " + w.Server + ": ")
	}
	b.WriteString(w.Message)
	return b.String()
}

// Problem is a file or server entry that could not be read; the rest of
// the file (or the other files) still is.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

// Error is the problem as FILE:LINE: message.
func (p Problem) Error() string {
	return Warning{Path: p.Path, Line: p.Line, Server: p.Server, Message: p.Message}.String()
}

// File is one configuration file read.
type File struct {
	Location
	// Servers is the number of server entries read from it.
	Servers int `json:"servers,omitempty"`
	// Err is why it could not be read (nil when it was).
	Err *Problem `json:"error,omitempty"`
}

// Result is what a scan found.
type Result struct {
	Files    []File    `json:"files,omitempty"`
	Servers  []*Server `json:"servers,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// WarningsFor are the warnings about one of the result's servers, at
// every place it is configured.
func (r *Result) WarningsFor(s *Server) []Warning {
	var out []Warning
	for _, w := range r.Warnings {
		for _, src := range s.Sources {
			if w.Entry > 0 && w.Path == src.Path && w.Entry == src.Line {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
