package config

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{
  "name": "io.github.acme/weather", "version": "1.4.0",
  "packages": [{"registryType": "npm", "identifier": "@acme/weather-mcp", "version": "1.4.0",
    "packageArguments": [{"type": "named", "name": "--units", "value": "metric"}],
    "environmentVariables": [{"name": "WEATHER_API_KEY", "isSecret": true}, {"name": "LOG_LEVEL", "default": "info"}]}]
}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "local"), 0o755)
	cfg, err := Parse(filepath.Join(dir, "mcp-audit.yml"), []byte(`
fail_on: high
network: sinkhole
idle: {quiet: 1s, max: 10s}
servers:
  memory:
    target: npm:@modelcontextprotocol/server-memory
    range: ^2026
    timeout: 90s
  mail:
    target: npm:postmark-mcp@1.0.15
    canary_env: [POSTMARK_SERVER_TOKEN]
    tool_args:
      send_email: {to: caller@mcp-audit.test, subject: hi}
    allow:
      hosts: ["api.postmarkapp.example", "*.postmark.example"]
  weather:
    server_json: server.json
  mine:
    target: ./local
    args: ["{workspace}"]
`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"mail", "memory", "mine", "weather"}, names); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	mail := cfg.Server("mail")
	if mail.Version != "1.0.15" || mail.Spec.Name != "postmark-mcp" || string(mail.ToolArgsJSON["send_email"]) != `{"subject":"hi","to":"caller@mcp-audit.test"}` {
		t.Errorf("mail %+v", mail)
	}
	if mem := cfg.Server("memory"); mem.Range != "^2026" || mem.Version != "" || mem.Timeout != Duration(90*time.Second) {
		t.Errorf("memory %+v", mem)
	}
	w := cfg.Server("weather")
	if w.Target != "npm:@acme/weather-mcp" || w.Version != "1.4.0" || !cmp.Equal(w.Args, []string{"--units", "metric"}) ||
		!cmp.Equal(w.CanaryEnv, []string{"WEATHER_API_KEY"}) || w.Env["LOG_LEVEL"] != "info" {
		t.Errorf("weather from server.json %+v", w)
	}
	if cfg.Server("mine").Spec.Kind != "dir" {
		t.Errorf("local target not resolved against the file: %+v", cfg.Server("mine").Spec)
	}
	if cfg.BaselineDir() != filepath.Join(dir, "baselines") {
		t.Errorf("baseline dir %s", cfg.BaselineDir())
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"servers:\n  a:\n    target: npm:x\n    frobnicate: 1\n", "c.yml:4: server a: unknown setting \"frobnicate\""},
		{"fail_on: sometimes\nservers: {a: {target: npm:x}}\n", "fail_on: unknown severity"},
		{"servers:\n  a:\n    target: npm:x\n    version: ^1\n", "c.yml:4: server a: version \"^1\" is not an exact"},
		{"servers:\n  a:\n    target: npm:x\n    network: wide\n", "c.yml:4: server a: network"},
		{"servers:\n  a:\n    target: ./nope\n", "c.yml:3: server a:"},
		{"servers:\n  a:\n    range: ^1\n", "c.yml:2: server a: target is missing"},
		{"servers:\n  a:\n    target: npm:x\n    tool_args: {t: 5}\n", "c.yml:4: server a: tool_args.t must be a mapping"},
		{"servers:\n  a:\n    target: npm:x\n    allow: {hosts: [\"api.*.com\"]}\n", "c.yml:4: server a: allow host"},
		{"nope: 1\n", "c.yml:1: unknown setting \"nope\" (known: allow_incomplete, baselines, fail_on, idle, mcp_registry, min_release_age, network, servers)"},
		{"fail_on: high\n", "no servers"},
		{"servers:\n  a:\n    target: npm:x\n    idle: 3\n", "c.yml:4: server a: unknown setting \"idle\""},
		{"servers:\n  a:\n    target: npm:x\n    args: 5\n", "c.yml:4: server a: args must be a list, not the number 5"},
		{"servers:\n  a:\n    target: npm:x\n\n    env: [1]\n", "c.yml:5: server a: env must be a mapping of name: value, not a list"},
		{"servers:\n  a:\n    target: npm:x\n    timeout: 1s\n    allow:\n      hostz: [a]\n", "c.yml:6: server a: unknown setting \"hostz\" under allow (known: hosts, paths, processes)"},
		{"servers:\n  a:\n    target: npm:x\n  b: [\n", "c.yml:4: not valid YAML: a value is missing, or a [ or { is not closed"},
		{"", "c.yml: the file is empty: it needs a servers: section"},
		{"# only a comment\n", "c.yml: the file is empty"},
		{"servers:\n  a:\n    target: npm:x\n  a:\n    target: npm:y\n", "c.yml:4: \"a\" is given twice under servers (lines 2 and 4)"},
		{"servers:\n  a:\n    target: npm:x\n    target: npm:y\n", "c.yml:4: \"target\" is given twice under server a (lines 3 and 4)"},
		{"servers:\n  a: {target: npm:x}\n---\nservers: {}\n", "c.yml:3: a second YAML document (---) starts here"},
		{"- a\n", "c.yml:1: the file must be a mapping of setting: value, not a list"},
		{"servers:\n  a:\n    target: npm:x\n    http_port: eighty\n", "c.yml:4: server a: http_port must be a whole number, not \"eighty\""},
		{"servers:\n  a:\n    target: npm:x\n    prerelease: maybe\n", "c.yml:4: server a: prerelease must be true or false, not \"maybe\""},
		{"servers:\n  a:\n    target: npm:x\n    allow: hosts\n", "c.yml:4: server a: allow must be a mapping of setting: value, not \"hosts\""},
		{"idle: 5\nservers: {a: {target: npm:x}}\n", "c.yml:1: idle must be a mapping of setting: value, not the number 5"},
		{"fail_on: [high]\nservers: {a: {target: npm:x}}\n", "c.yml:1: fail_on must be a single value, not a list"},
		{"idle:\n  quiet: 1s\n  max: soon\nservers: {a: {target: npm:x}}\n", "c.yml:3: \"soon\" is not a duration"},
		{"servers:\n  a:\n    target: npm:x\n    timeout: -5s\n", "c.yml:4: server a: timeout must be positive"},
		{"servers:\n  a:\n    target: npm:x\n    timeout: soon\n", "c.yml:4: server a: \"soon\" is not a duration"},
	} {
		_, err := Parse("c.yml", []byte(tc.yaml))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tc.yaml, err, tc.want)
		}
		// The user's words: no Go type or YAML tag reaches them.
		if err != nil && goWords.MatchString(err.Error()) {
			t.Errorf("%q: %v speaks Go", tc.yaml, err)
		}
	}
}

var goWords = regexp.MustCompile(`unmarshal|!!|\bEOF\b|in type|\bconfig\.(raw|[A-Z])|\bpolicy\.[A-Z]|\[\]string|map\[|struct \{`)

func TestServerForPackage(t *testing.T) {
	cfg, err := Parse("mcp-audit.yml", []byte("servers:\n  mail:\n    target: npm:@acme/mail\n  other:\n    target: npm:other\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.ServerForPackage("@acme/mail"); s == nil || s.Name != "mail" {
		t.Errorf("got %+v", s)
	}
	if cfg.ServerForPackage("missing") != nil || cfg.ServerForPackage("") != nil {
		t.Error("no server audits these")
	}
}

// TestReportLine: findings point at the line that names the version, the
// one a bump changes; the name line when nothing pins a version.
func TestReportLine(t *testing.T) {
	cfg, err := Parse("mcp-audit.yml", []byte(`servers:
  pinned:
    target: npm:pinned-mcp
    fail_on: high
    version: 1.2.3
  ranged:
    range: ^2
    target: npm:ranged-mcp
  intarget:
    fail_on: high
    target: npm:intarget-mcp@3.0.0
  latest:
    target: npm:latest-mcp
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"pinned": 5, "ranged": 7, "intarget": 11, "latest": 12} {
		if got := cfg.Server(name).ReportLine(); got != want {
			t.Errorf("%s: line %d, want %d", name, got, want)
		}
	}
}
