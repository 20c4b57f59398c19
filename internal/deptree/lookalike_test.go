package deptree

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestResemblesNPM(t *testing.T) {
	for _, tc := range []struct {
		name, resembles, kind string
	}{
		// look-alikes
		{"@modelcontext-protocol/server-filesystem", "@modelcontextprotocol/server-filesystem", LookSeparator},
		{"@modelcontextprotocoll/server-filesystem", "@modelcontextprotocol/server-filesystem", LookEdit},
		{"@modelcontextprotocol/server-filesystems", "@modelcontextprotocol/server-filesystem", LookEdit},
		{"@modelcontextprotocol/server-filesytsem", "@modelcontextprotocol/server-filesystem", LookEdit},
		{"@modelcontextprotocol/server-filesysten", "@modelcontextprotocol/server-filesystem", LookEdit},
		{"@modelcontextprotocol/sdkk", "@modelcontextprotocol/sdk", LookEdit},
		{"@modelcontextprotocol/server_filesystem", "@modelcontextprotocol/server-filesystem", LookSeparator},
		{"@model-context-protocol/server-github", "@modelcontextprotocol/server-github", LookSeparator},
		{"mcp_remote", "mcp-remote", LookSeparator},
		{"mcp.remote", "mcp-remote", LookSeparator},
		{"MCP-Remote", "mcp-remote", LookSeparator},
		{"mcp-remote2", "mcp-remote", LookEdit},
		{"firecrawl-mpc", "firecrawl-mcp", LookEdit},
		{"@evil/server-filesystem", "@modelcontextprotocol/server-filesystem", LookScope},
		{"server-filesystem", "@modelcontextprotocol/server-filesystem", LookScope},
		{"@upstash-ai/context7-mcp", "@upstash/context7-mcp", LookScope},
		// not look-alikes: the popular names themselves, and ordinary names
		{"@modelcontextprotocol/server-filesystem", "", ""},
		{"@modelcontextprotocol/sdk", "", ""},
		{"@playwright/test", "", ""},
		{"@other/mcp", "", ""},
		{"mcp", "", ""},
		{"zod", "", ""},
		{"@modelcontextprotocol/server-gitlab", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, k := ResemblesNPM(tc.name)
			if r != tc.resembles || k != tc.kind {
				t.Errorf("ResemblesNPM(%q) = %q, %q; want %q, %q", tc.name, r, k, tc.resembles, tc.kind)
			}
		})
	}
}

func TestResemblesPyPI(t *testing.T) {
	for _, tc := range []struct {
		name, resembles, kind string
	}{
		{"mcp-server-fetch", "", ""},
		{"mcp_server_fetch", "", ""}, // the same project on an index
		{"MCP.Server.Fetch", "", ""},
		{"mcp-server-fetchh", "mcp-server-fetch", LookEdit},
		{"mcp-sever-fetch", "mcp-server-fetch", LookEdit},
		{"mcpserverfetch", "mcp-server-fetch", LookSeparator},
		{"fastmpc", "fastmcp", LookEdit},
		{"mcp2", "", ""}, // "mcp" is too short to measure against
		{"httpx", "", ""},
		{"pydantic", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, k := ResemblesPyPI(tc.name)
			if r != tc.resembles || k != tc.kind {
				t.Errorf("ResemblesPyPI(%q) = %q, %q; want %q, %q", tc.name, r, k, tc.resembles, tc.kind)
			}
		})
	}
}

func TestWithinOneEdit(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", false}, {"abc", "abd", true}, {"abc", "ab", true}, {"abc", "abcd", true},
		{"abc", "bac", true}, {"abcd", "abdc", true}, {"abcd", "badc", false}, {"abc", "cab", false},
		{"abc", "a", false}, {"", "a", true}, {"ab", "ba", true}, {"héllo", "hello", true},
	} {
		if got := withinOneEdit(tc.a, tc.b); got != tc.want {
			t.Errorf("withinOneEdit(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// studyTargets reads the package names of a study list.
func studyTargets(t *testing.T, file, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "study", file))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Servers map[string]struct {
			Target string `yaml:"target"`
		} `yaml:"servers"`
	}
	if err := yaml.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range list.Servers {
		if n, ok := strings.CutPrefix(s.Target, prefix); ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// TestPopularCoversStudy keeps the built-in list equal to the study's, and
// shows that none of the 40 study servers (nor the Python ones) is taken
// for a look-alike of another.
func TestPopularCoversStudy(t *testing.T) {
	npm := studyTargets(t, "servers.yml", "npm:")
	if len(npm) != 40 {
		t.Fatalf("study/servers.yml has %d npm servers, want 40", len(npm))
	}
	for _, n := range npm {
		if !slices.Contains(PopularNPM, n) {
			t.Errorf("%s is in study/servers.yml but not in PopularNPM", n)
		}
		if r, k := ResemblesNPM(n); k != "" {
			t.Errorf("study server %s taken for a look-alike of %s (%s)", n, r, k)
		}
	}
	for _, n := range studyTargets(t, "python.yml", "pypi:") {
		if !slices.Contains(PopularPyPI, n) {
			t.Errorf("%s is in study/python.yml but not in PopularPyPI", n)
		}
	}
	for _, p := range PopularNPM {
		if r, k := ResemblesNPM(p); k != "" {
			t.Errorf("popular %s taken for a look-alike of %s (%s)", p, r, k)
		}
	}
}

// commonDependencies are packages that fill MCP servers' trees; none may
// look like a popular server or shadow a command.
var commonDependencies = []string{
	"@modelcontextprotocol/sdk", "zod", "zod-to-json-schema", "express", "ajv", "ajv-formats", "content-type",
	"cors", "cross-spawn", "eventsource", "eventsource-parser", "pkce-challenge", "raw-body", "body-parser",
	"debug", "ms", "iconv-lite", "safer-buffer", "node-fetch", "whatwg-url", "tr46", "webidl-conversions",
	"axios", "follow-redirects", "form-data", "mime-types", "mime-db", "proxy-from-env", "dotenv", "commander",
	"yargs", "chalk", "glob", "minimatch", "brace-expansion", "diff", "uuid", "semver", "ws", "undici",
	"@types/node", "typescript", "tslib", "puppeteer", "@puppeteer/browsers", "playwright", "playwright-core",
	"@playwright/test", "@supabase/supabase-js", "@notionhq/client", "@octokit/rest", "@slack/web-api", "pg",
	"mysql2", "sqlite3", "better-sqlite3", "openai", "@anthropic-ai/sdk", "jsdom", "cheerio", "turndown",
	"@upstash/redis", "mcp-proxy", "fastmcp", "@mcp-ui/server", "which", "isexe", "path-key", "shebang-command",
}

func TestLookalikesCommonDependencies(t *testing.T) {
	var pkgs []NPMPackage
	for _, n := range append(commonDependencies, PopularNPM...) {
		pkgs = append(pkgs, NPMPackage{Path: "node_modules/" + n, Name: n, Version: "1.0.0"})
	}
	// Their real bins (the ones these packages declare).
	bins := map[string][]string{"typescript": {"tsc", "tsserver"}, "semver": {"semver"}, "uuid": {"uuid"},
		"which": {"node-which"}, "glob": {"glob"}, "playwright": {"playwright"}, "playwright-core": {"playwright-core"},
		"@puppeteer/browsers": {"browsers"}, "mcp-remote": {"mcp-remote", "mcp-remote-client"}, "@playwright/mcp": {"playwright-mcp"},
		"@modelcontextprotocol/server-filesystem": {"mcp-server-filesystem"}, "@wonderwhy-er/desktop-commander": {"desktop-commander", "setup", "remove"}}
	for i, p := range pkgs {
		pkgs[i] = withBin(p, bins[p.Name]...)
	}
	if got := Lookalikes(npmTree(pkgs...)); len(got) != 0 {
		t.Errorf("look-alikes among ordinary packages: %+v", got)
	}
}

func TestLookalikesBins(t *testing.T) {
	tree := npmTree(
		withBin(pkg("helper", "1.0.0", ""), "git", "helper"),
		withBin(pkg("npm", "10.0.0", ""), "npm", "npx"),
		withBin(pkg("fork-of-fs", "1.0.0", ""), "mcp-server-filesystem"),
		withBin(pkg("@modelcontextprotocol/server-filesystem", "1.0.0", ""), "mcp-server-filesystem"),
		pkg("@modelcontextprotocol/server-filesytsem", "1.0.0", ""),
	)
	tree.Python = []PyDist{{Name: "evil", Key: "evil", EntryPoints: []EntryPoint{{Name: "pip", Group: "console_scripts"}}},
		{Name: "pip", Key: "pip", EntryPoints: []EntryPoint{{Name: "pip", Group: "console_scripts"}}, Bins: []string{"pip3"}}}
	want := []Lookalike{
		{Ecosystem: NPM, Name: "@modelcontextprotocol/server-filesytsem", Kind: LookEdit, Resembles: "@modelcontextprotocol/server-filesystem", Severity: Low},
		{Ecosystem: NPM, Name: "fork-of-fs", Bin: "mcp-server-filesystem", Kind: LookBinServer, Resembles: "mcp-server-filesystem",
			Owner: "@modelcontextprotocol/server-filesystem", Severity: Low},
		{Ecosystem: NPM, Name: "helper", Bin: "git", Kind: LookBinCommand, Resembles: "git", Severity: Low},
		{Ecosystem: PyPI, Name: "evil", Bin: "pip", Kind: LookBinCommand, Resembles: "pip", Severity: Low},
	}
	if d := cmp.Diff(want, Lookalikes(tree)); d != "" {
		t.Errorf("look-alikes (-want +got):\n%s", d)
	}
}
