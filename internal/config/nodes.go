package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The configuration is checked node by node against the Go types it
// decodes into before it is decoded, so every mistake is reported at its
// own line in the user's words ("args must be a list, not a number"),
// never as a Go type ("cannot unmarshal !!int into []string"), and a key
// given twice is refused instead of the last one silently winning.

// nodeError is a mistake at a line of the file.
type nodeError struct {
	line int
	msg  string
}

func (e *nodeError) Error() string { return e.msg }

func errAt(n *yaml.Node, format string, a ...any) error {
	return &nodeError{line: n.Line, msg: fmt.Sprintf(format, a...)}
}

var durationType = reflect.TypeFor[Duration]()

// checkNode checks n against t; name is the setting's name for messages
// ("args", "allow.hosts", "" at the top).
func checkNode(n *yaml.Node, t reflect.Type, name string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // empty: the default
	}
	switch {
	case t == durationType:
		return wantKind(n, yaml.ScalarNode, name, "a duration like 2s or 500ms")
	case t.Kind() == reflect.Struct:
		return checkMapping(n, t, name)
	case t.Kind() == reflect.Slice:
		if err := wantKind(n, yaml.SequenceNode, name, "a list"); err != nil {
			return err
		}
		for _, item := range n.Content {
			if err := checkNode(item, t.Elem(), name+" entries"); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map:
		if err := wantKind(n, yaml.MappingNode, name, "a mapping of name: value"); err != nil {
			return err
		}
		if err := duplicates(n, name); err != nil {
			return err
		}
		for i := 1; i < len(n.Content); i += 2 {
			child := join(name, n.Content[i-1].Value)
			if name == "servers" {
				child = "server " + n.Content[i-1].Value
			}
			if err := checkNode(n.Content[i], t.Elem(), child); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return errAt(n, "%s must be true or false, not %s", name, describe(n))
		}
	case t.Kind() == reflect.Int:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return errAt(n, "%s must be a whole number, not %s", name, describe(n))
		}
	case t.Kind() == reflect.String:
		return wantKind(n, yaml.ScalarNode, name, "a single value")
	}
	return nil
}

// checkMapping checks a mapping against a struct's yaml fields.
func checkMapping(n *yaml.Node, t reflect.Type, name string) error {
	if err := wantKind(n, yaml.MappingNode, cmpName(name), "a mapping of setting: value"); err != nil {
		return err
	}
	if err := duplicates(n, name); err != nil {
		return err
	}
	fields := yamlFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			known := strings.Join(sortedNames(fields), ", ")
			if server, below, ok := strings.Cut(name, ": "); ok && isServer(server) {
				return errAt(k, "%s: unknown setting %q under %s (known: %s)", server, k.Value, below, known)
			}
			if isServer(name) {
				return errAt(k, "%s: unknown setting %q (known: %s)", name, k.Value, known)
			}
			return errAt(k, "unknown setting %q%s (known: %s)", k.Value, under(name), known)
		}
		if err := checkNode(v, ft, join(name, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

// duplicates refuses a key given twice in one mapping.
func duplicates(n *yaml.Node, name string) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, ok := seen[k.Value]; ok {
			return errAt(k, "%q is given twice%s (lines %d and %d); give it once", k.Value, under(name), line, k.Line)
		}
		seen[k.Value] = k.Line
	}
	return nil
}

func wantKind(n *yaml.Node, kind yaml.Kind, name, want string) error {
	if n.Kind != kind {
		return errAt(n, "%s must be %s, not %s", cmpName(name), want, describe(n))
	}
	return nil
}

// describe names what a node is in the user's words.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "the number " + v
	case "!!bool":
		return v
	}
	return fmt.Sprintf("%q", v)
}

// yamlFields are a struct's settings by yaml name.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out[tag] = t.Field(i).Type
		}
	}
	return out
}

func sortedNames(m map[string]reflect.Type) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// join names a setting below another: "idle.quiet", "server mail:
// allow.hosts".
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case isServer(a):
		return a + ": " + b
	}
	return a + "." + b
}

// isServer reports a server's own name ("server mail"), not a setting
// below it.
func isServer(name string) bool {
	return strings.HasPrefix(name, "server ") && !strings.Contains(name, ":")
}

func under(name string) string {
	if name == "" {
		return ""
	}
	return " under " + name
}

func cmpName(name string) string {
	if name == "" {
		return "the file"
	}
	return name
}

// layout is the file's shape for checkNode: raw, with the servers typed.
type layout struct {
	FailOn          string            `yaml:"fail_on"`
	AllowIncomplete bool              `yaml:"allow_incomplete"`
	Network         string            `yaml:"network"`
	Idle            Idle              `yaml:"idle"`
	Baselines       string            `yaml:"baselines"`
	MinReleaseAge   *Duration         `yaml:"min_release_age"`
	MCPRegistry     string            `yaml:"mcp_registry"`
	Servers         map[string]Server `yaml:"servers"`
}

// checkLayout reads the file as YAML and checks its shape: one document
// that is not empty, every setting known, of the right kind, and given
// once.
func checkLayout(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return errors.New("the file is empty: it needs a servers: section naming the servers to audit (see docs/config.md)")
	} else if err != nil {
		line, msg := errorLine(err, 0)
		if words, ok := yamlWords[msg]; ok {
			msg = words + " (" + msg + ")"
		}
		return &nodeError{line: line, msg: "not valid YAML: " + msg}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return &nodeError{line: next.Line, msg: "a second YAML document (---) starts here; the file is one document"}
	}
	if len(doc.Content) == 0 {
		return errors.New("the file has only comments: it needs a servers: section naming the servers to audit (see docs/config.md)")
	}
	return checkNode(doc.Content[0], reflect.TypeFor[layout](), "")
}

// yamlWords say what the YAML parser's commonest messages mean.
var yamlWords = map[string]string{
	"did not find expected node content":             "a value is missing, or a [ or { is not closed",
	"found character that cannot start any token":    "a character that cannot start a value (YAML indents with spaces, not tabs)",
	"mapping values are not allowed in this context": "a colon where no mapping can start (quote a value that contains \": \")",
	"did not find expected key":                      "the indentation does not line up with the settings above",
	"found unexpected end of stream":                 "the file ends inside a quoted value or an open [ or {",
	"could not find expected ':'":                    "a setting without a colon after its name",
}
