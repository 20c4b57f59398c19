// Package config reads mcp-audit.yml: the servers a project trusts, how to
// audit them, their allow-lists and the failure threshold. Errors name the
// file and line. docs/config.md documents the format.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"

	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// ErrInvalid marks a configuration the user must fix.
var ErrInvalid = errors.New("invalid configuration")

// DefaultFile is the configuration file looked for by default.
const DefaultFile = "mcp-audit.yml"

// Config is a parsed mcp-audit.yml.
type Config struct {
	// Path is the file the configuration was read from.
	Path string `yaml:"-"`
	// FailOn is the default failure threshold.
	FailOn string `yaml:"fail_on"`
	// AllowIncomplete makes an incomplete audit a pass with a warning
	// for every server (each server can set it too).
	AllowIncomplete bool `yaml:"allow_incomplete"`
	// Network is the default network mode.
	Network string `yaml:"network"`
	// Idle bounds the idle phase.
	Idle Idle `yaml:"idle"`
	// Baselines is the baseline directory, relative to the file.
	Baselines string `yaml:"baselines"`
	// MinReleaseAge is how old a release must be before check accepts it
	// (nil: the default, 48h; 0 judges it at once).
	MinReleaseAge *Duration `yaml:"min_release_age"`
	// MCPRegistry is the base URL of an MCP registry whose entry check
	// asks for a server given by server_json (none by default).
	MCPRegistry string `yaml:"mcp_registry"`
	// Servers by name, sorted by name.
	Servers []*Server `yaml:"-"`
}

// Idle configures the idle phase.
type Idle struct {
	Quiet Duration `yaml:"quiet"`
	Min   Duration `yaml:"min"`
	Max   Duration `yaml:"max"`
	// Dwell is the least real time idle lasts (waiting is cheap in batch
	// and scheduled runs); empty keeps the command's default.
	Dwell Duration `yaml:"dwell"`
}

// Duration is a time.Duration written as "2s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 2s or 500ms", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Server is one audited server.
type Server struct {
	Name string `yaml:"-"`
	Line int    `yaml:"-"`
	// VersionLine is the line that says which version to audit (version:,
	// range:, or a target or server_json carrying one); 0 when none does.
	VersionLine int `yaml:"-"`
	// Target is npm:NAME, a directory or a .tgz (relative to the file).
	Target string `yaml:"target"`
	// Version pins an npm version; Range selects the newest matching
	// version (semver range or dist-tag, default latest).
	Version    string `yaml:"version"`
	Range      string `yaml:"range"`
	Prerelease bool   `yaml:"prerelease"`
	// ServerJSON is an MCP registry server.json describing the server.
	ServerJSON string            `yaml:"server_json"`
	Bin        string            `yaml:"bin"`
	Args       []string          `yaml:"args"`
	Env        map[string]string `yaml:"env"`
	CanaryEnv  []string          `yaml:"canary_env"`
	Calls      string            `yaml:"calls"`
	Tools      []string          `yaml:"tools"`
	ToolArgs   map[string]any    `yaml:"tool_args"`
	Network    string            `yaml:"network"`
	// Transport is stdio (default) or http; HTTPPort and HTTPPath say
	// where an http server listens inside the sandbox.
	Transport string       `yaml:"transport"`
	HTTPPort  int          `yaml:"http_port"`
	HTTPPath  string       `yaml:"http_path"`
	FailOn    string       `yaml:"fail_on"`
	Allow     policy.Allow `yaml:"allow"`
	// AllowIncomplete makes this server's incomplete audit a pass with a
	// warning.
	AllowIncomplete bool `yaml:"allow_incomplete"`
	// Timeout is the hard limit on one audit of this server (default
	// 10m, or batch --timeout).
	Timeout Duration `yaml:"timeout"`

	// Registry is what the server.json says of the server's MCP registry
	// entry (its name, version and status), filled by Load.
	Registry RegistryEntry `yaml:"-"`
	// ToolArgsJSON is ToolArgs encoded, filled by Load.
	ToolArgsJSON map[string]json.RawMessage `yaml:"-"`
	// Ecosystem and Package name the server for baselines: "npm" and the
	// package name for registry targets, "local" and the directory's
	// package name otherwise.
	Spec target.Spec `yaml:"-"`
}

type raw struct {
	FailOn          string    `yaml:"fail_on"`
	AllowIncomplete bool      `yaml:"allow_incomplete"`
	Network         string    `yaml:"network"`
	Idle            Idle      `yaml:"idle"`
	Baselines       string    `yaml:"baselines"`
	MinReleaseAge   *Duration `yaml:"min_release_age"`
	MCPRegistry     string    `yaml:"mcp_registry"`
	Servers         yaml.Node `yaml:"servers"`
}

// Load reads and validates a configuration file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return Parse(path, data)
}

// Parse validates configuration text read from path.
func Parse(path string, data []byte) (*Config, error) {
	fail := func(line int, format string, a ...any) error {
		if line > 0 {
			return fmt.Errorf("%w: %s:%d: %s", ErrInvalid, path, line, fmt.Sprintf(format, a...))
		}
		return fmt.Errorf("%w: %s: %s", ErrInvalid, path, fmt.Sprintf(format, a...))
	}
	if err := checkLayout(data); err != nil {
		var ne *nodeError
		if errors.As(err, &ne) {
			return nil, fail(ne.line, "%s", ne.msg)
		}
		return nil, fail(0, "%s", err.Error())
	}
	var r raw
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		line, msg := errorLine(err, 0)
		return nil, fail(line, "%s", msg)
	}
	c := &Config{Path: path, FailOn: r.FailOn, AllowIncomplete: r.AllowIncomplete, Network: r.Network, Idle: r.Idle, Baselines: r.Baselines,
		MinReleaseAge: r.MinReleaseAge, MCPRegistry: r.MCPRegistry}
	if c.Baselines == "" {
		c.Baselines = "baselines"
	}
	if err := checkFailOn(c.FailOn); err != nil {
		return nil, fail(0, "fail_on: %v", err)
	}
	if err := checkNetwork(c.Network); err != nil {
		return nil, fail(0, "network: %v", err)
	}
	if c.MinReleaseAge != nil && *c.MinReleaseAge < 0 {
		return nil, fail(0, "min_release_age: %s is negative", time.Duration(*c.MinReleaseAge))
	}
	if err := checkRegistryURL(c.MCPRegistry); err != nil {
		return nil, fail(0, "mcp_registry: %v", err)
	}
	if r.Servers.Kind == 0 {
		return nil, fail(0, "no servers: add a servers: section")
	}
	if r.Servers.Kind != yaml.MappingNode {
		return nil, fail(r.Servers.Line, "servers must be a mapping of name: settings")
	}
	dir := filepath.Dir(path)
	for i := 0; i+1 < len(r.Servers.Content); i += 2 {
		key, val := r.Servers.Content[i], r.Servers.Content[i+1]
		s := &Server{Name: key.Value, Line: key.Line}
		if val.Kind != yaml.MappingNode {
			return nil, fail(key.Line, "server %s: settings must be a mapping", key.Value)
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			if k := val.Content[j]; !knownServerKeys[k.Value] {
				return nil, fail(k.Line, "server %s: unknown setting %q (known: %s)", key.Value, k.Value, knownList())
			}
		}
		// Decoding the node itself keeps the file's line numbers for type
		// errors; the strict pass then rejects unknown nested keys.
		if err := val.Decode(s); err != nil {
			line, msg := errorLine(err, key.Line)
			return nil, fail(line, "server %s: %s", key.Value, msg)
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			one := &yaml.Node{Kind: yaml.MappingNode, Content: val.Content[j : j+2]}
			if err := decodeStrict(one, &Server{}); err != nil {
				return nil, fail(val.Content[j].Line, "server %s: %v", key.Value, err)
			}
		}
		if err := s.validate(dir, fail, val); err != nil {
			return nil, err
		}
		s.VersionLine = s.versionLine(val)
		c.Servers = append(c.Servers, s)
	}
	sort.Slice(c.Servers, func(i, j int) bool { return c.Servers[i].Name < c.Servers[j].Name })
	return c, nil
}

// knownServerKeys are the yaml names of Server's fields.
var knownServerKeys = func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(Server{})
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out[tag] = true
		}
	}
	return out
}()

func knownList() string {
	var k []string
	for n := range knownServerKeys {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, ", ")
}

// errorLine splits the first error of a yaml decoding error into its line
// (def when it names none) and message.
func errorLine(err error, def int) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "unmarshal errors:"))
	msg, _, _ = strings.Cut(msg, "\n")
	var line int
	if _, err := fmt.Sscanf(msg, "line %d:", &line); err == nil && line > 0 {
		_, rest, _ := strings.Cut(msg, ": ")
		return line, rest
	}
	return def, msg
}

// decodeStrict decodes a node rejecting unknown fields.
func decodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	err = dec.Decode(v)
	if err != nil {
		// Line numbers of the re-encoded node are relative; say which key.
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimSpace(strings.TrimPrefix(msg, "unmarshal errors:"))
		if i := strings.Index(msg, "line "); i >= 0 {
			if j := strings.Index(msg[i:], ": "); j >= 0 {
				msg = msg[:i] + msg[i+j+2:]
			}
		}
		return errors.New(msg)
	}
	return nil
}

// ReportLine is where findings about the server point: the line a
// reviewer changes to accept or reject a version, its version line, else
// its name.
func (s *Server) ReportLine() int {
	if s.VersionLine > 0 {
		return s.VersionLine
	}
	return s.Line
}

// ReportLines maps each server to its ReportLine, where SARIF results
// point.
func (c *Config) ReportLines() map[string]int {
	out := map[string]int{}
	for _, s := range c.Servers {
		out[s.Name] = s.ReportLine()
	}
	return out
}

// versionLine finds the line of the server's settings node n that names
// the version: version: or range:, else the target or server_json the
// version came from.
func (s *Server) versionLine(n *yaml.Node) int {
	keys := []string{"version", "range"}
	if s.Version != "" || s.Range != "" {
		keys = append(keys, "target", "server_json")
	}
	for _, k := range keys {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return n.Content[i].Line
			}
		}
	}
	return 0
}

func lineOf(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

func checkFailOn(s string) error {
	if s == "" {
		return nil
	}
	_, err := policy.ParseSeverity(s)
	return err
}

func checkNetwork(s string) error {
	switch s {
	case "", "sinkhole", "none", "open":
		return nil
	}
	return fmt.Errorf("%q is not sinkhole, none or open", s)
}

func (s *Server) validate(dir string, fail func(int, string, ...any) error, n *yaml.Node) error {
	at := func(key string) int { return lineOf(n, key) }
	if s.ServerJSON != "" {
		if s.Target != "" {
			return fail(at("server_json"), "server %s: give target or server_json, not both", s.Name)
		}
		p := s.ServerJSON
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := s.fromServerJSON(p); err != nil {
			return fail(at("server_json"), "server %s: %v", s.Name, err)
		}
	}
	if s.Target == "" {
		return fail(s.Line, "server %s: target is missing (npm:NAME, a directory or a .tgz)", s.Name)
	}
	t := s.Target
	if !target.IsRegistrySpec(t) && !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	spec, err := target.ParseSpec(t)
	if err != nil {
		return fail(at("target"), "server %s: %v", s.Name, errors.Unwrap(err))
	}
	if spec.Range != "" && (s.Version != "" || s.Range != "") {
		return fail(at("target"), "server %s: put the version in version: or range:, not in the target", s.Name)
	}
	if spec.Ecosystem().VersionKeys && spec.Range != "" {
		if _, err := semver.StrictNewVersion(spec.Range); err == nil {
			s.Version = spec.Range
		} else {
			s.Range = spec.Range
		}
		spec.Range = ""
	}
	s.Spec = spec
	if !spec.Ecosystem().VersionKeys && (s.Version != "" || s.Range != "") {
		return fail(at("version"), "server %s: version and range apply to npm targets only", s.Name)
	}
	if s.Version != "" {
		if _, err := semver.StrictNewVersion(s.Version); err != nil {
			return fail(at("version"), "server %s: version %q is not an exact semver version", s.Name, s.Version)
		}
		if s.Range != "" {
			return fail(at("range"), "server %s: give version (pinned) or range, not both", s.Name)
		}
	}
	if s.Range != "" && s.Range != "latest" {
		if _, err := semver.NewConstraint(s.Range); err != nil && !isTag(s.Range) {
			return fail(at("range"), "server %s: range %q is not a semver range or dist-tag", s.Name, s.Range)
		}
	}
	if s.Calls != "" && s.Calls != "all" && s.Calls != "none" {
		return fail(at("calls"), "server %s: calls must be all or none", s.Name)
	}
	if err := checkNetwork(s.Network); err != nil {
		return fail(at("network"), "server %s: network: %v", s.Name, err)
	}
	if s.Transport != "" && s.Transport != "stdio" && s.Transport != "http" {
		return fail(at("transport"), "server %s: transport must be stdio or http", s.Name)
	}
	if s.HTTPPort < 0 || s.HTTPPort > 65535 {
		return fail(at("http_port"), "server %s: http_port must be a port number", s.Name)
	}
	if err := checkFailOn(s.FailOn); err != nil {
		return fail(at("fail_on"), "server %s: fail_on: %v", s.Name, err)
	}
	if s.Timeout < 0 {
		return fail(at("timeout"), "server %s: timeout must be positive", s.Name)
	}
	s.ToolArgsJSON = map[string]json.RawMessage{}
	for tool, v := range s.ToolArgs {
		if _, ok := v.(map[string]any); !ok {
			return fail(at("tool_args"), "server %s: tool_args.%s must be a mapping of argument: value", s.Name, tool)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fail(at("tool_args"), "server %s: tool_args.%s: %v", s.Name, tool, err)
		}
		s.ToolArgsJSON[tool] = b
	}
	for _, h := range s.Allow.Hosts {
		if strings.Contains(h, "*") && !strings.HasPrefix(h, "*.") {
			return fail(at("allow"), "server %s: allow host %q: a wildcard is only allowed as a leading *.", s.Name, h)
		}
	}
	return nil
}

func isTag(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return s != "" && (s[0] < '0' || s[0] > '9')
}

// PackageName is the name a registry package's baselines are stored under
// ("" for a local target).
func (s *Server) PackageName() string {
	if e := s.Spec.Ecosystem(); e.Registry {
		return e.BaselineName(s.Spec.Name)
	}
	return ""
}

// EnvList returns Env as sorted NAME=VALUE pairs.
func (s *Server) EnvList() []string {
	var out []string
	for k, v := range s.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// ServerForPackage is the first server that audits the named package, or
// nil: how a stored manifest finds the policy it is judged under.
func (c *Config) ServerForPackage(pkg string) *Server {
	for _, s := range c.Servers {
		if s.Spec.Name != "" && s.Spec.Name == pkg {
			return s
		}
	}
	return nil
}

// Server returns a server by name.
func (c *Config) Server(name string) *Server {
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// BaselineDir is the baseline directory, resolved against the file.
func (c *Config) BaselineDir() string {
	if filepath.IsAbs(c.Baselines) {
		return c.Baselines
	}
	return filepath.Join(filepath.Dir(c.Path), c.Baselines)
}

// Policy is a configured server's policy: the file's fail_on, the
// server's, then the flag's (failOnFlag, "" for none), and the server's
// allow-list.
func (c *Config) Policy(s *Server, failOnFlag string) policy.Policy {
	failOn := policy.DefaultFailOn
	for _, v := range []string{c.FailOn, s.FailOn, failOnFlag} {
		if v != "" {
			failOn, _ = policy.ParseSeverity(v)
		}
	}
	return policy.Policy{Allow: s.Allow, FailOn: failOn, AllowIncomplete: c.AllowIncomplete || s.AllowIncomplete}
}
