package clientconfig

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// got is the part of a mapping a case checks.
type got struct {
	Kind, Pkg, Version, Bin, Local string
	Args, Env                      []string
	Warns                          []string // warning kinds
	Reason                         string   // a word the reason must contain
}

func project(m mapped, reasonWord string) got {
	g := got{Kind: m.kind, Pkg: m.pkg, Version: m.version, Bin: m.bin, Local: m.local, Args: m.args, Env: m.env}
	for _, n := range m.notes {
		g.Warns = append(g.Warns, n.kind)
	}
	if reasonWord != "" && strings.Contains(m.reason, reasonWord) {
		g.Reason = reasonWord
	}
	return g
}

func TestMapCommand(t *testing.T) {
	const unp, shell = WarnUnpinned, WarnShell
	cases := []struct {
		name    string
		command string
		args    []string
		reason  string // expected word in the reason of an unrecognised command
		want    got
	}{
		// npm runners
		{"npx scoped pinned with flag", "npx", []string{"-y", "@scope/pkg@1.2.3", "--flag"}, "",
			got{Kind: KindNPM, Pkg: "@scope/pkg", Version: "1.2.3", Args: []string{"--flag"}}},
		{"npx --yes unpinned", "npx", []string{"--yes", "server-memory"}, "",
			got{Kind: KindNPM, Pkg: "server-memory", Args: []string{}, Warns: []string{unp}}},
		{"npx @latest", "npx", []string{"-y", "@playwright/mcp@latest"}, "",
			got{Kind: KindNPM, Pkg: "@playwright/mcp", Version: "latest", Args: []string{}, Warns: []string{unp}}},
		{"npx range", "npx", []string{"pkg@^1.2.0"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "^1.2.0", Args: []string{}, Warns: []string{unp}}},
		{"npx -p pkg cmd", "npx", []string{"-p", "pkg@2.0.0", "cmd", "--x"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "2.0.0", Bin: "cmd", Args: []string{"--x"}}},
		{"npx --package=pkg cmd", "npx", []string{"--package=@a/b@1.0.0", "b-server"}, "",
			got{Kind: KindNPM, Pkg: "@a/b", Version: "1.0.0", Bin: "b-server", Args: []string{}}},
		{"npx -- separator", "npx", []string{"-y", "--", "pkg@1.0.0", "-y"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{"-y"}}},
		{"npx full path on Windows", `C:\Program Files\nodejs\npx.cmd`, []string{"-y", "pkg@1.0.0"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{}}},
		{"npx two packages", "npx", []string{"-p", "a", "-p", "b", "cmd"}, "several", got{Kind: KindUnrecognised, Reason: "several"}},
		{"npx unknown option", "npx", []string{"--frobnicate", "pkg"}, "knows", got{Kind: KindUnrecognised, Reason: "knows"}},
		{"npx git spec", "npx", []string{"-y", "github:user/repo"}, "git", got{Kind: KindUnrecognised, Reason: "git"}},
		{"npx bad name", "npx", []string{"-y", "Not_A_Name!"}, "npm package", got{Kind: KindUnrecognised, Reason: "npm package"}},
		{"npx local dir", "npx", []string{"./tools/server"}, "", got{Kind: KindLocal, Local: "./tools/server"}},
		{"npx -p --call", "npx", []string{"-p", "pkg-server", "-c", "pkg-server --port 1"}, "",
			got{Kind: KindNPM, Pkg: "pkg-server", Args: []string{"--port", "1"}, Warns: []string{unp, shell}}},
		{"npx --call without package", "npx", []string{"-c", "pkg-server --port 1"}, "no named",
			got{Kind: KindUnrecognised, Reason: "no named", Warns: []string{shell}}},
		{"npm exec", "npm", []string{"exec", "--yes", "pkg@1.0.0", "--", "x"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{"--", "x"}}},
		{"npm run", "npm", []string{"run", "start"}, "npm exec", got{Kind: KindUnrecognised, Reason: "npm exec"}},
		{"pnpm dlx", "pnpm", []string{"dlx", "pkg@1.0.0", "a"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{"a"}}},
		{"pnpm dlx --package", "pnpm", []string{"dlx", "--package", "@s/p@3.1.4", "p"}, "",
			got{Kind: KindNPM, Pkg: "@s/p", Version: "3.1.4", Args: []string{}}}, // p is @s/p's own bin
		{"bunx", "bunx", []string{"--bun", "pkg@0.1.0"}, "", got{Kind: KindNPM, Pkg: "pkg", Version: "0.1.0", Args: []string{}}},
		{"bun x", "bun", []string{"x", "pkg@0.1.0"}, "", got{Kind: KindNPM, Pkg: "pkg", Version: "0.1.0", Args: []string{}}},
		{"yarn dlx", "yarn", []string{"dlx", "-p", "pkg@1.0.0", "cmd"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Bin: "cmd", Args: []string{}}},
		{"node script", "node", []string{"--max-old-space-size=4096", "/srv/mcp/build/index.js", "--v"}, "",
			got{Kind: KindLocal, Local: "/srv/mcp/build/index.js", Args: []string{"--v"}}},
		{"node npx-cli.js", "node", []string{`C:\nodejs\node_modules\npm\bin\npx-cli.js`, "-y", "pkg@1.0.0"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{}}},
		{"node -e", "node", []string{"-e", "code"}, "knows", got{Kind: KindUnrecognised, Reason: "knows"}},
		// Python runners
		{"uvx pinned", "uvx", []string{"mcp-server-fetch==2025.4.7"}, "",
			got{Kind: KindPyPI, Pkg: "mcp-server-fetch", Version: "==2025.4.7", Args: []string{}}},
		{"uvx unpinned", "uvx", []string{"mcp-server-git", "--repository", "/r"}, "",
			got{Kind: KindPyPI, Pkg: "mcp-server-git", Args: []string{"--repository", "/r"}, Warns: []string{unp}}},
		{"uvx --from pkg==1.0 cmd", "uvx", []string{"--from", "pkg==1.0", "cmd"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==1.0", Bin: "cmd", Args: []string{}}},
		{"uvx --from quoted spaces", "uvx", []string{"--from", "pkg == 1.0", "pkg"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==1.0", Args: []string{}}},
		{"uvx pkg@1.0", "uvx", []string{"pkg@1.0"}, "", got{Kind: KindPyPI, Pkg: "pkg", Version: "==1.0", Args: []string{}}},
		{"uvx range", "uvx", []string{"pkg>=1.0"}, "", got{Kind: KindPyPI, Pkg: "pkg", Version: ">=1.0", Args: []string{}, Warns: []string{unp}}},
		{"uvx extras", "uvx", []string{"pkg[cli]==2.0"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==2.0", Args: []string{}, Warns: []string{WarnNote}}},
		{"uvx git", "uvx", []string{"--from", "git+https://host.example/r", "x"}, "URL", got{Kind: KindUnrecognised, Reason: "URL"}},
		{"uv tool run", "uv", []string{"tool", "run", "pkg==3"}, "", got{Kind: KindPyPI, Pkg: "pkg", Version: "==3", Args: []string{}}},
		{"uv run --with", "uv", []string{"run", "--with", "pkg==1.2", "pkg-server", "--a"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==1.2", Bin: "pkg-server", Args: []string{"--a"}}},
		{"uv --directory run script", "uv", []string{"--directory", "/p/weather", "run", "weather.py"}, "",
			got{Kind: KindLocal, Local: "/p/weather/weather.py", Args: []string{}}},
		{"uv run --directory cmd", "uv", []string{"run", "--directory", "/p/srv", "srv"}, "",
			got{Kind: KindLocal, Local: "/p/srv", Bin: "srv", Args: []string{}}},
		{"uv run bare cmd", "uv", []string{"run", "srv"}, "directory", got{Kind: KindUnrecognised, Reason: "directory"}},
		{"pipx run", "pipx", []string{"run", "--spec", "pkg==1.0", "cmd", "x"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==1.0", Bin: "cmd", Args: []string{"x"}}},
		{"python -m", "python3", []string{"-m", "mcp_server_time", "--tz", "UTC"}, "",
			got{Kind: KindPyPI, Pkg: "mcp_server_time", Args: []string{"--tz", "UTC"}, Warns: []string{unp, WarnNote}}},
		{"python -m dotted", "python", []string{"-m", "a.b"}, "PyPI project", got{Kind: KindUnrecognised, Reason: "PyPI project"}},
		{"python script", "python3.12", []string{"-u", "/srv/server.py", "--x"}, "",
			got{Kind: KindLocal, Local: "/srv/server.py", Args: []string{"--x"}}},
		// docker
		{"docker run reserved registry", "docker", []string{"run", "-i", "--rm", "-e", "TOKEN", "registry.example/team/server:1.2", "stdio"}, "",
			got{Kind: KindOCI, Pkg: "registry.example/team/server", Version: "1.2", Args: []string{"stdio"}, Env: []string{"TOKEN"}}},
		{"docker bundled -it, digest", "docker", []string{"run", "-it", "--rm", "img@sha256:" + strings.Repeat("a", 64)}, "",
			got{Kind: KindOCI, Pkg: "img", Version: "sha256:" + strings.Repeat("a", 64), Args: []string{}}},
		{"docker no tag", "docker", []string{"run", "-i", "--rm", "mcp/fetch"}, "",
			got{Kind: KindOCI, Pkg: "mcp/fetch", Args: []string{}, Warns: []string{unp}}},
		{"docker dangerous", "docker", []string{"run", "--privileged", "--network=host", "--pid", "host", "--cap-add", "SYS_ADMIN",
			"-v", "/var/run/docker.sock:/var/run/docker.sock", "-v", "/home/u/data:/data:ro", "-v", "named:/cache",
			"--mount", "type=bind,source=/etc,target=/host-etc", "-e", "A=b", "img:1"}, "",
			got{Kind: KindOCI, Pkg: "img", Version: "1", Args: []string{}, Env: []string{"A"},
				Warns: []string{WarnPrivileged, WarnHostNamespace, WarnHostNamespace, WarnCapability, WarnDockerSocket, WarnHostMount, WarnHostMount}}},
		{"docker container run", "podman", []string{"container", "run", "-i", "img:2"}, "", got{Kind: KindOCI, Pkg: "img", Version: "2", Args: []string{}}},
		{"docker exec", "docker", []string{"exec", "-i", "c", "srv"}, "run", got{Kind: KindUnrecognised, Reason: "run"}},
		{"docker unknown flag", "docker", []string{"run", "--frob", "img:1"}, "knows", got{Kind: KindUnrecognised, Reason: "knows"}},
		{"docker bad image", "docker", []string{"run", "-i", "${IMAGE}"}, "image", got{Kind: KindUnrecognised, Reason: "image"}},
		// shells and wrappers
		{"sh -c plain", "sh", []string{"-c", "npx -y pkg@1.0.0 --a"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{"--a"}, Warns: []string{shell}}},
		{"bash -lc pipe", "bash", []string{"-lc", "npx pkg | tee log"}, "pipes",
			got{Kind: KindUnrecognised, Reason: "pipes", Warns: []string{shell}}},
		{"cmd /c", "cmd", []string{"/c", "npx", "-y", "pkg@1.0.0"}, "",
			got{Kind: KindNPM, Pkg: "pkg", Version: "1.0.0", Args: []string{}, Warns: []string{shell}}},
		{"sh script file", "bash", []string{"/home/u/run.sh"}, "script", got{Kind: KindUnrecognised, Reason: "script", Warns: []string{shell}}},
		{"env wrapper", "env", []string{"API_KEY=x", "uvx", "pkg==1"}, "",
			got{Kind: KindPyPI, Pkg: "pkg", Version: "==1", Args: []string{}, Env: []string{"API_KEY"}}},
		{"nested wrappers", "env", strings.Fields("A=1 env B=1 env C=1 env D=1 env E=1 npx x"), "wrappers",
			got{Kind: KindUnrecognised, Reason: "wrappers", Env: []string{"A", "B", "C", "D", "E"}}},
		// others
		{"local executable", "/opt/mcp/bin/server", []string{"--stdio"}, "", got{Kind: KindLocal, Local: "/opt/mcp/bin/server", Args: []string{"--stdio"}}},
		{"unknown program", "deno", []string{"run", "x.ts"}, "launcher", got{Kind: KindUnrecognised, Reason: "launcher"}},
		{"empty", "", nil, "empty", got{Kind: KindUnrecognised, Reason: "empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mapCommand(c.command, c.args, 0)
			g := project(m, c.reason)
			if diff := cmp.Diff(c.want, g, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mapCommand(%q, %q) (-want +got):\n%s\nreason: %s", c.command, c.args, diff, m.reason)
			}
		})
	}
}
