package audit

import (
	"hash/fnv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
)

// clientEnv is the environment a popular MCP client gives a stdio server.
// The MCP SDKs' stdio transports (TypeScript, Python), which Claude
// Desktop, Claude Code, Cursor and most other clients use, pass on only
// HOME, LOGNAME, PATH, SHELL, TERM and USER from the client's own
// environment, plus the variables configured for the server; TERM is
// there only when the client itself runs in a terminal. The profiles
// differ in those, so a server that acts on its client's environment
// behaves differently from run to run, and the stability check sees it.
type clientEnv struct {
	name string
	env  []string
}

var clientEnvs = []clientEnv{
	// A desktop application (Claude Desktop, Cursor): started by the
	// session, no terminal.
	{"desktop", []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}},
	// A command-line client (Claude Code, Gemini CLI) run in a terminal
	// from a shell with the user's own bin directories on PATH.
	{"terminal", []string{"TERM=xterm-256color",
		"PATH=" + Home + "/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}},
	// An editor (VS Code) that passes its own inherited environment,
	// locale included, still without a terminal.
	{"editor", []string{"LANG=en_US.UTF-8",
		"PATH=" + Home + "/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"}},
}

// pickClientEnv chooses a profile for one run, and returns its name and
// the server's base environment. The choice is a function of the package
// and the run's number: one version gets the same profile every time (so
// identical behavior still gives byte-identical manifests), different
// servers get different ones, and the runs of --runs N go through the
// profiles (so a server that acts on its client's environment shows as
// unstable).
func pickClientEnv(seed string, run int) (string, []string) {
	h := fnv.New32a()
	h.Write([]byte(seed))
	p := clientEnvs[(int(h.Sum32()%uint32(len(clientEnvs)))+run)%len(clientEnvs)]
	env := []string{"HOME=" + Home, "USER=" + User, "LOGNAME=" + User, "SHELL=/bin/bash", "PWD=" + Workspace}
	return p.name, append(env, p.env...)
}

// The client identity sent in initialize. A server that looks for an
// auditor's name in clientInfo sees the one a popular client sends,
// unless the user asks for another (--client-info NAME/VERSION).

func (o Options) clientName() string {
	name, _, _ := strings.Cut(o.ClientInfo, "/")
	if name == "" {
		return mcpclient.DefaultClientName
	}
	return name
}

func (o Options) clientVersion() string {
	name, version, ok := strings.Cut(o.ClientInfo, "/")
	if name == "" || !ok || version == "" {
		return mcpclient.DefaultClientVersion
	}
	return version
}
