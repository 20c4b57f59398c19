package mcpclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// x-mcp-header (2026-07-28): a tool's inputSchema may ask clients on
// Streamable HTTP to mirror an argument into an Mcp-Param-{Name} header,
// so whatever the argument holds (a region, or an API key) also travels
// in a header intermediaries log. The client mirrors as the revision
// requires and records every mirrored argument, so an auditor can flag a
// secret-like one.

// HeaderParam is one x-mcp-header declaration of a tool.
type HeaderParam struct {
	Path   []string // the chain of properties keys from the arguments root
	Header string   // the declared {Name} of Mcp-Param-{Name}
	Type   string   // string, integer or boolean
}

// MirroredArg is an argument the client sent in a header.
type MirroredArg struct {
	Tool   string
	Path   string // the argument's path, keys joined by "."
	Header string // the full header name, Mcp-Param-{Name}
	Value  string // the header value sent (bounded)
}

// RejectedTool is a tool whose declarations break the revision's rules;
// a conforming HTTP client leaves it out of tools/list.
type RejectedTool struct {
	Tool, Reason string
}

// Bounds of a declaration scan: a hostile schema cannot recurse or fan
// out without end.
const (
	maxSchemaDepth = 32
	maxSchemaNodes = 10000
	maxDeclared    = 32
	maxMirrorValue = 256
	maxMirrored    = 1000
)

// notReachable are the keywords an x-mcp-header path must not pass
// through; a declaration under one makes the tool invalid.
var notReachable = []string{"items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties",
	"unevaluatedItems", "propertyNames", "patternProperties", "dependentSchemas", "oneOf", "anyOf", "allOf",
	"not", "if", "then", "else", "$defs", "definitions"}

// ToolHeaders reads the x-mcp-header declarations of one tools/list
// entry. An error says why the declarations make the tool invalid.
func ToolHeaders(tool json.RawMessage) (name string, params []HeaderParam, err error) {
	var t struct {
		Name        string `json:"name"`
		InputSchema any    `json:"inputSchema"`
	}
	if err := json.Unmarshal(tool, &t); err != nil {
		return "", nil, fmt.Errorf("decoding tool: %w", err)
	}
	s := scan{seen: map[string]bool{}}
	if err := s.visit(t.InputSchema, nil, true, 0); err != nil {
		return t.Name, nil, err
	}
	return t.Name, s.out, nil
}

type scan struct {
	out   []HeaderParam
	seen  map[string]bool
	nodes int
}

func (s *scan) visit(node any, path []string, reachable bool, depth int) error {
	schema, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	if s.nodes++; s.nodes > maxSchemaNodes || depth > maxSchemaDepth {
		return fmt.Errorf("input schema too large or deep to check its x-mcp-header declarations")
	}
	if raw, ok := schema["x-mcp-header"]; ok {
		if err := s.declare(schema, raw, path, reachable); err != nil {
			return err
		}
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if err := s.visit(props[k], append(slices.Clip(path), k), reachable, depth+1); err != nil {
				return err
			}
		}
	}
	for _, k := range notReachable {
		for _, sub := range branches(k, schema[k]) {
			if err := s.visit(sub, append(slices.Clip(path), "<"+k+">"), false, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *scan) declare(schema map[string]any, raw any, path []string, reachable bool) error {
	where := strings.Join(path, ".")
	name, _ := raw.(string)
	typ, _ := schema["type"].(string)
	switch {
	case !reachable || len(path) == 0:
		return fmt.Errorf("%s: x-mcp-header is allowed only on a property reached through properties keys", truncate(where, 100))
	case !isToken(name):
		return fmt.Errorf("%s: x-mcp-header %q is not an HTTP token", truncate(where, 100), truncate(name, 60))
	case typ != "string" && typ != "integer" && typ != "boolean":
		return fmt.Errorf("%s: x-mcp-header on a property of type %q (want string, integer or boolean)", truncate(where, 100), truncate(typ, 20))
	case s.seen[strings.ToLower(name)]:
		return fmt.Errorf("x-mcp-header %q declared twice", truncate(name, 60))
	case len(s.out) >= maxDeclared:
		return fmt.Errorf("more than %d x-mcp-header declarations", maxDeclared)
	}
	s.seen[strings.ToLower(name)] = true
	s.out = append(s.out, HeaderParam{Path: slices.Clone(path), Header: name, Type: typ})
	return nil
}

// objectValued are the keywords whose value maps names to subschemas.
var objectValued = map[string]bool{"patternProperties": true, "dependentSchemas": true, "$defs": true, "definitions": true}

// branches are the subschemas under keyword k: one, a list, or a map's.
func branches(k string, v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		if !objectValued[k] {
			return []any{x}
		}
		out := make([]any, 0, len(x))
		for _, name := range sortedKeys(x) {
			out = append(out, x[name])
		}
		return out
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isToken: RFC 9110 tchar, at least one.
func isToken(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		alnum := b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(b)) {
			return false
		}
	}
	return true
}

// headerValue encodes a value for an MCP header: plain when it is visible
// ASCII (inner spaces and tabs allowed), else the =?base64?…?= sentinel,
// which also wraps a plain value that looks like the sentinel.
func headerValue(s string) string {
	plain := s != "" && s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t'
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] == '\t' || s[i] >= 0x20 && s[i] <= 0x7e
	}
	if s == "" {
		plain = true
	}
	if plain && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// argValue is the header form of the argument at path, if it has one of
// the declared type (a null, a missing value or a mistyped one: none).
func argValue(args map[string]any, p HeaderParam) (string, bool) {
	var v any = args
	for _, k := range p.Path {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[k]
	}
	switch x := v.(type) {
	case string:
		return headerValue(x), p.Type == "string"
	case bool:
		return strconv.FormatBool(x), p.Type == "boolean"
	case json.Number:
		n, err := strconv.ParseInt(x.String(), 10, 64)
		return strconv.FormatInt(n, 10), err == nil && p.Type == "integer" && n > -(1<<53) && n < 1<<53
	}
	return "", false
}
