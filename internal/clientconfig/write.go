package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/target"
	"go.yaml.in/yaml/v3"
)

// ErrNoServers: none of the servers can be written to mcp-audit.yml
// (remote and unrecognised servers have no target).
var ErrNoServers = errors.New("no server with a package, image or directory to audit")

// WriteOptions are the inputs of Write besides the servers.
type WriteOptions struct {
	// Dir is the directory mcp-audit.yml is written in: local targets
	// below it are written relative to it.
	Dir string
	// Home shows source files as ~/… in comments.
	Home string
	// Versions maps a server's Name to the version an audit resolved: an
	// npm version, a PyPI version, an image digest (sha256:…) or tag.
	// A server without one keeps the version it is configured with.
	Versions map[string]string
}

// Write writes an mcp-audit.yml (docs/config.md) auditing servers: each
// pinned to its version in o.Versions, its variables as canary_env, its
// arguments with {workspace} and {home}, and a comment naming the client
// files it came from. No value of a variable is written, and arguments
// that looked like secrets are already Redacted. Remote and unrecognised
// servers, and local ones whose package directory is not found, are
// listed in comments only.
func Write(servers []*Server, o WriteOptions) ([]byte, error) {
	list := &yaml.Node{Kind: yaml.MappingNode}
	var left []string
	for _, s := range servers {
		n, why := serverNode(s, o)
		if n == nil {
			left = append(left, fmt.Sprintf("%s (%s): %s", s.Name, s.Kind, why))
			continue
		}
		comment := sourcesComment(s, o.Home)
		if s.Disabled {
			comment += "\nDisabled in its client: audited all the same, since it can be turned on."
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Value: s.Name, HeadComment: comment}
		list.Content = append(list.Content, key, n)
	}
	if len(list.Content) == 0 {
		return nil, ErrNoServers
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, HeadComment: "Written by mcp-audit init from the MCP clients' configurations: each server\n" +
		"pinned to the version audited, its variables filled with canaries (no value\n" +
		"is copied from a client file). See docs/config.md and docs/scan.md."}
	doc.Content = append(doc.Content, scalar("servers"), list)
	if len(left) > 0 {
		list.FootComment = "Not written (no package, image or directory to audit):\n" + strings.Join(left, "\n")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}); err != nil {
		return nil, fmt.Errorf("encoding mcp-audit.yml: %w", err)
	}
	return b.Bytes(), nil
}

// Unwritable says why Write leaves s out of an mcp-audit.yml, "" when it
// writes it: a remote or unrecognised server, or a local one whose
// package directory is not found.
func (s *Server) Unwritable() string {
	_, why := serverNode(s, WriteOptions{})
	return why
}

// serverNode is a server's settings, or nil and why it cannot be written.
func serverNode(s *Server, o WriteOptions) (*yaml.Node, string) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { n.Content = append(n.Content, scalar(k), v) }
	audited := o.Versions[s.Name]
	switch s.Kind {
	case KindNPM:
		add("target", scalar(target.EcosystemNamed(KindNPM).Spec(s.Package)))
		v := audited
		if v == "" {
			v = s.Version
		}
		switch {
		case v == "":
		case npmUnpinned(v) == "":
			add("version", scalar(v))
		default:
			add("range", scalar(v))
		}
	case KindPyPI:
		v := s.Version
		if audited != "" {
			v = "==" + strings.TrimPrefix(audited, "==")
		}
		add("target", scalar(target.EcosystemNamed(KindPyPI).SpecAt(s.Package, v)))
	case KindOCI:
		c := *s
		if audited != "" {
			c.Version = audited
		}
		add("target", scalar(c.Target()))
	case KindLocal:
		dir, why := localRoot(s.Local)
		if dir == "" {
			return nil, why
		}
		add("target", scalar(relTo(o.Dir, dir)))
		if dir != s.Local {
			n.Content[0].HeadComment = "The client runs " + quoteName(filepath.Base(s.Local)) + "; the audit starts the package's own\nentry (its bin): add bin: if that is another one."
		}
	default:
		if s.Kind == KindRemote {
			return nil, "a remote server at " + s.Host
		}
		return nil, s.Reason
	}
	if s.Bin != "" {
		add("bin", scalar(s.Bin))
	}
	if len(s.Args) > 0 {
		add("args", flowList(s.Args))
	}
	if len(s.Env) > 0 {
		add("canary_env", flowList(s.Env))
	}
	for _, a := range s.Args {
		if strings.Contains(a, Redacted) {
			n.Content[0].HeadComment = "An argument that looked like a secret is " + Redacted + ": pass it in a\nvariable the server reads, so the audit can fill it with a canary."
			break
		}
	}
	return n, ""
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func flowList(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, it := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: it, Style: yaml.DoubleQuotedStyle})
	}
	return n
}

// sourcesComment names the client files a server came from.
func sourcesComment(s *Server, home string) string {
	var lines []string
	for _, src := range s.Sources {
		client := "file"
		if c := ClientByID(src.Client); c != nil {
			client = c.Name
		}
		p := src.Path
		if home != "" {
			if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = filepath.ToSlash(filepath.Join("~", rel))
			}
		}
		lines = append(lines, fmt.Sprintf("%s: %s:%d (%s)", client, p, src.Line, quoteName(src.Name)))
	}
	return strings.Join(lines, "\n")
}

// localRoot is the package directory of a local server: the path itself
// when it is a directory, else the nearest directory above it holding
// package.json, pyproject.toml or setup.py.
func localRoot(p string) (string, string) {
	st, err := os.Stat(p)
	if err != nil {
		return "", "its path " + quoteName(p) + " does not exist on this machine"
	}
	if st.IsDir() || strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".whl") {
		return p, ""
	}
	dir := filepath.Dir(p)
	for i := 0; i < 8; i++ {
		for _, marker := range []string{"package.json", "pyproject.toml", "setup.py"} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, ""
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return "", "no package.json, pyproject.toml or setup.py above " + quoteName(p)
}

// relTo writes p relative to dir when it is below it.
func relTo(dir, p string) string {
	if dir == "" {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return "./" + filepath.ToSlash(rel)
}
