package clientconfig

import (
	"strings"
	"testing"
)

func TestSecretIn(t *testing.T) {
	cases := []struct {
		name, value string
		secret      bool
	}{
		// by the value's shape, whatever the name
		{"X", "ghp_" + strings.Repeat("0", 36), true},
		{"X", "xoxb-0000000000-fake", true},
		{"X", "AKIA" + strings.Repeat("A", 16), true},
		{"X", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlZmFrZQ", true},
		{"DATABASE_URL", "postgres://app:hunter2pass@db.example:5432/app", true},
		{"X", "-----BEGIN OPENSSH PRIVATE KEY-----", true},
		// by the name, with a literal value
		{"GITHUB_TOKEN", "abcdef012345", true},
		{"MY_API_KEY", "k3y-value-here0", true},
		{"CLIENT_SECRET", "s3cr3tvalue", true},
		{"DB_PASSWORD", "correct horse", true},
		// controls: references, placeholders, harmless values and names
		{"GITHUB_TOKEN", "${GITHUB_TOKEN}", false},
		{"GITHUB_TOKEN", "${env:GITHUB_TOKEN}", false},
		{"API_KEY", "${input:api-key}", false},
		{"TOKEN", "${{ secrets.TOKEN }}", false},
		{"TOKEN", "$TOKEN", false},
		{"TOKEN", "%TOKEN%", false},
		{"API_KEY", "<your api key>", false},
		{"API_KEY", "your-api-key-here", false},
		{"API_KEY", "YOUR_API_KEY", false},
		{"TOKEN", "xxxxxxxx", false},
		{"TOKEN", "", false},
		{"TOKEN_FILE", "/run/secrets/token", false},
		{"AUTH_MODE", "oauth", false},
		{"LOG_LEVEL", "debug", false},
		{"MEMORY_FILE_PATH", "/srv/memory.json", false},
		{"AUTHOR", "Alice Example", false},
		{"PORT", "8080", false},
		{"Authorization", "Bearer ${TOKEN}", false},
		{"Authorization", "Bearer abcdefghijklmnop", true},
	}
	for _, c := range cases {
		if got := secretIn(c.name, c.value) != ""; got != c.secret {
			t.Errorf("secretIn(%q, %q) = %v, want %v", c.name, c.value, got, c.secret)
		}
	}
}

func TestURLSecret(t *testing.T) {
	cases := map[string]bool{
		"https://mcp.example/mcp":                      false,
		"https://mcp.example/mcp?profile=free":         false,
		"https://mcp.example/mcp?key=abcdef0123456789": true,
		"https://mcp.example/sse?api_key=${KEY}":       false,
		"https://user:pw@mcp.example/mcp":              true,
	}
	for u, want := range cases {
		if got := urlSecret(u) != ""; got != want {
			t.Errorf("urlSecret(%s) = %v, want %v", u, got, want)
		}
	}
}

func TestArgsRedacted(t *testing.T) {
	e := Env{Home: "/home/a", Dir: "/home/a/p", OS: "linux"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--api-key", "abcdef0123456789"}, "--api-key " + Redacted},
		{[]string{"--token=abcdef0123456789"}, "--token=" + Redacted},
		{[]string{"ghp_" + strings.Repeat("1", 36)}, Redacted},
		// controls
		{[]string{"--api-key", "${API_KEY}"}, "--api-key ${API_KEY}"},
		{[]string{"--auth", "none"}, "--auth none"},
		{[]string{"--token-file", "/home/a/.tok"}, "--token-file {home}/.tok"},
		{[]string{"--keyword", "search"}, "--keyword search"},
	}
	for _, c := range cases {
		en := entry{name: "s", command: "npx", args: append([]string{"-y", "pkg@1.0.0"}, c.args...)}
		r := resolve(Location{Path: "/f", Scope: ScopeUser}, en, e)
		if got := strings.Join(r.server.Args, " "); got != c.want {
			t.Errorf("args %q became %q, want %q", c.args, got, c.want)
		}
		for _, w := range r.warnings {
			for _, a := range c.args {
				if len(a) > 8 && !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "${") && strings.Contains(w.Message, a) {
					t.Errorf("warning %q holds the argument %q", w.Message, a)
				}
			}
		}
	}
}
