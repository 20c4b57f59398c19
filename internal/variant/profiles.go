package variant

import (
	"hash/fnv"
	"slices"
	"strings"
)

// Profile is the environment a popular MCP client gives a stdio server.
// The MCP SDKs' stdio transports (TypeScript, Python), which Claude
// Desktop, Claude Code, Cursor and most other clients use, pass on only
// HOME, LOGNAME, PATH, SHELL, TERM and USER from the client's own
// environment, plus the variables configured for the server; TERM is
// there only when the client itself runs in a terminal. The profiles
// differ in those, so a server that acts on its client's environment
// behaves differently from run to run, and the comparisons see it.
type Profile struct {
	Name string
	vars func(home string) []string
}

// Profiles are the client environments a run can get.
var Profiles = []Profile{
	// A desktop application (Claude Desktop, Cursor): started by the
	// session, no terminal.
	{"desktop", func(string) []string { return []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"} }},
	// A command-line client (Claude Code, Gemini CLI) run in a terminal
	// from a shell with the user's own bin directories on PATH.
	{"terminal", func(home string) []string {
		return []string{"TERM=xterm-256color", "PATH=" + home + "/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}},
	// An editor (VS Code) that passes its own inherited environment,
	// locale included, still without a terminal.
	{"editor", func(home string) []string {
		return []string{"LANG=en_US.UTF-8", "PATH=" + home + "/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"}
	}},
}

// PickProfile chooses a profile for one run from a seed (the package
// version under the installation's secret): one version gets the same
// profile every time (so identical behavior still gives byte-identical
// manifests), different servers get different ones, and the runs of
// --runs N go through the profiles.
func PickProfile(seed string, run int) Profile {
	h := fnv.New32a()
	h.Write([]byte(seed))
	return Profiles[(int(h.Sum32()%uint32(len(Profiles)))+run)%len(Profiles)]
}

// ProfileNamed is the profile of a name (desktop when unknown).
func ProfileNamed(name string) Profile {
	for _, p := range Profiles {
		if p.Name == name {
			return p
		}
	}
	return Profiles[0]
}

// Env is the server's base environment under the profile for the
// identity, starting in workspace.
func (p Profile) Env(id Identity, workspace string) []string {
	env := []string{"HOME=" + id.Home, "USER=" + id.User, "LOGNAME=" + id.User, "SHELL=/bin/bash", "PWD=" + workspace}
	return append(env, p.vars(id.Home)...)
}

// Swap replaces another profile's variables in env by p's.
func (p Profile) Swap(env []string, home string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(e string) bool {
		return strings.HasPrefix(e, "PATH=") || strings.HasPrefix(e, "TERM=") || strings.HasPrefix(e, "LANG=")
	})
	return append(out, p.vars(home)...)
}
