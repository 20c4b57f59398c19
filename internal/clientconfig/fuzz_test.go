package clientconfig

import (
	"strings"
	"testing"
)

// FuzzReadAndMap: any file, in any of the formats, read and mapped,
// never panics, and what comes out is bounded and safe to write.
func FuzzReadAndMap(f *testing.F) {
	seeds := []string{
		`{"mcpServers":{"a":{"command":"docker","args":["run","-it","-e","A=b","-v","/x:/y","img:1"]}}}`,
		`{"servers":{"b":{"command":"sh","args":["-c","env A=1 uvx --from p==1 c"]},"r":{"type":"sse","url":"https://h.example/s?key=v"}}}`,
		`{"context_servers":{"z":{"command":{"path":"npx","args":["-p","q","-c","q x"]}}}}`,
		"[mcp_servers.c]\ncommand = \"uv\"\nargs = [\"run\", \"--with\", \"p\", \"p\"]\n",
		"mcpServers:\n  - name: y\n    command: pipx\n    args: [run, --spec, 'p==1', p]\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	formats := []string{formatAny, formatClaudeJSON, formatCodex, formatContinueYAML}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			var r fileRead
			l := Location{Path: "/f", Format: format, Scope: ScopeProject}
			switch format {
			case formatCodex:
				r, _ = readCodex(l, data)
			case formatContinueYAML:
				r, _ = readContinueYAML(l, data)
			default:
				r, _ = readJSON(l, data)
			}
			if len(r.entries) > MaxServersPerFile {
				t.Fatalf("%d entries", len(r.entries))
			}
			var servers []*Server
			for _, en := range r.entries {
				res := resolve(l, en, Env{Home: "/h", Dir: "/h/p", OS: "linux"})
				servers = append(servers, res.server)
				for _, n := range res.server.Env {
					if !reEnvName.MatchString(n) {
						t.Fatalf("variable name %q", n)
					}
				}
			}
			if len(servers) == 0 {
				continue
			}
			nameServers(servers)
			for _, s := range servers {
				if s.Name == "" || strings.ContainsAny(s.Name, " :\n\"'{}[]#") {
					t.Fatalf("server name %q", s.Name)
				}
			}
		}
	})
}
