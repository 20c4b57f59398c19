// Package argsynth synthesizes minimal valid arguments for an MCP tool from
// its JSON Schema, so every tool can be called without a human.
//
// Values look like a real user's (a person's name and address at a
// made-up company, a report title, paths inside the decoy workspace), so a
// server cannot tell an audit from real use by its arguments; they never
// name the tool or the auditor, and no reserved test domain appears. They
// are sent only into the sandbox, whose sinkhole answers every name, so
// nothing leaves. They are fixed: a payload that carries them can be traced
// back to what the caller supplied, anything else in a payload stands out
// (the postmark-mcp pattern, a hidden Bcc), and manifests stay
// byte-identical.
package argsynth

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Caller-supplied values. They appear in the manifest's call records so
// that diffs can tell supplied values from injected ones.
const (
	Email     = "maria.lindqvist@brightwater-logistics.com"
	URL       = "https://www.brightwater-logistics.com/reports/q3-summary"
	Host      = "files.brightwater-logistics.com"
	Text      = "Quarterly report"
	Person    = "Maria Lindqvist"
	Login     = "mlindqvist"
	Company   = "Brightwater Logistics"
	ID        = "48213"
	Query     = "shipping delays october"
	Workspace = "/home/dev/workspace"
	File      = "/home/dev/workspace/README.md"
)

// ForName returns the value a string parameter called name gets when its
// schema says nothing more (prompt arguments, URI template variables).
func ForName(name string) string { return str(&jsonschema.Schema{}, name) }

const maxDepth = 8

// Synthesize returns arguments for a tool whose inputSchema is raw, and
// whether they validate against it. An empty or unusable schema yields {}.
func Synthesize(raw json.RawMessage) (json.RawMessage, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`), true, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return json.RawMessage(`{}`), false, fmt.Errorf("input schema: %w", err)
	}
	g := &gen{root: &s}
	v := g.value(&s, "", 0)
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{} // tool arguments are always an object
	}
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`), false, err
	}
	return out, Validate(raw, out) == nil, nil
}

// Validate checks args against a tool's input schema.
func Validate(schema, args json.RawMessage) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false})
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

type gen struct {
	root *jsonschema.Schema
}

// deref follows local references (#/$defs/x, #/definitions/x).
func (g *gen) deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != "" && i < 8; i++ {
		name := ""
		var defs map[string]*jsonschema.Schema
		switch {
		case strings.HasPrefix(s.Ref, "#/$defs/"):
			name, defs = strings.TrimPrefix(s.Ref, "#/$defs/"), g.root.Defs
		case strings.HasPrefix(s.Ref, "#/definitions/"):
			name, defs = strings.TrimPrefix(s.Ref, "#/definitions/"), g.root.Definitions
		case s.Ref == "#":
			return g.root
		default:
			return s
		}
		next, ok := defs[name]
		if !ok {
			return s
		}
		s = next
	}
	return s
}

func typeOf(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	if len(s.Types) > 0 {
		return s.Types[0]
	}
	switch {
	case len(s.Properties) > 0 || len(s.Required) > 0:
		return "object"
	case s.Items != nil || s.MinItems != nil:
		return "array"
	case s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.MultipleOf != nil:
		return "number"
	}
	return "string"
}

func (g *gen) value(s *jsonschema.Schema, name string, depth int) any {
	s = g.deref(s)
	if s == nil || depth > maxDepth {
		return Text
	}
	if s.Const != nil {
		return *s.Const
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	for _, alts := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf} {
		for _, a := range alts {
			if a := g.deref(a); a != nil && typeOf(a) != "null" {
				return g.value(a, name, depth+1)
			}
		}
	}
	if len(s.AllOf) > 0 {
		merged := map[string]any{}
		var other any
		for _, a := range s.AllOf {
			v := g.value(a, name, depth+1)
			if m, ok := v.(map[string]any); ok {
				for k, x := range m {
					merged[k] = x
				}
			} else {
				other = v
			}
		}
		if len(merged) > 0 || other == nil {
			if typeOf(s) == "object" || len(s.Properties) > 0 {
				for k, x := range g.object(s, depth).(map[string]any) {
					merged[k] = x
				}
			}
			return merged
		}
		return other
	}
	switch typeOf(s) {
	case "object":
		return g.object(s, depth)
	case "array":
		n := 1
		if s.MinItems != nil && *s.MinItems > 1 {
			n = *s.MinItems
		}
		if s.MaxItems != nil && *s.MaxItems < n {
			n = *s.MaxItems
		}
		arr := make([]any, 0, n)
		for i := range n {
			item := s.Items
			if i < len(s.PrefixItems) {
				item = s.PrefixItems[i]
			}
			if item == nil && i < len(s.ItemsArray) {
				item = s.ItemsArray[i]
			}
			v := g.value(item, singular(name), depth+1)
			if s.UniqueItems && i > 0 {
				if str, ok := v.(string); ok {
					v = fmt.Sprintf("%s-%d", str, i+1)
				}
			}
			arr = append(arr, v)
		}
		return arr
	case "integer":
		return number(s, true)
	case "number":
		return number(s, false)
	case "boolean":
		if s.Default != nil {
			var b bool
			if json.Unmarshal(s.Default, &b) == nil {
				return b
			}
		}
		return false
	case "null":
		return nil
	}
	return str(s, name)
}

func (g *gen) object(s *jsonschema.Schema, depth int) any {
	obj := map[string]any{}
	required := slices.Clone(s.Required)
	if s.MinProperties != nil {
		for k := range s.Properties {
			if len(required) >= *s.MinProperties {
				break
			}
			if !slices.Contains(required, k) {
				required = append(required, k)
			}
		}
	}
	for _, k := range required {
		obj[k] = g.value(s.Properties[k], k, depth+1)
	}
	return obj
}

func singular(name string) string { return strings.TrimSuffix(name, "s") }

func number(s *jsonschema.Schema, integer bool) any {
	v := 1.0
	if s.Default != nil {
		var d float64
		if json.Unmarshal(s.Default, &d) == nil {
			v = d
		}
	}
	if s.Minimum != nil && v < *s.Minimum {
		v = *s.Minimum
	}
	if s.ExclusiveMinimum != nil && v <= *s.ExclusiveMinimum {
		v = *s.ExclusiveMinimum + 1
	}
	if s.Maximum != nil && v > *s.Maximum {
		v = *s.Maximum
	}
	if s.ExclusiveMaximum != nil && v >= *s.ExclusiveMaximum {
		v = *s.ExclusiveMaximum - 1
		if !integer {
			v = *s.ExclusiveMaximum - 0.5
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		v = math.Ceil(v / *s.MultipleOf) * *s.MultipleOf
	}
	if integer {
		return int64(math.Ceil(v))
	}
	return v
}

// str picks a string by format, then by the property's name.
func str(s *jsonschema.Schema, name string) string {
	var v string
	n := strings.ToLower(name)
	switch s.Format {
	case "email", "idn-email":
		v = Email
	case "uri", "url", "iri", "uri-reference", "iri-reference":
		v = URL
	case "date-time":
		v = "2026-01-01T00:00:00Z"
	case "date":
		v = "2026-01-01"
	case "time":
		v = "00:00:00Z"
	case "uuid":
		v = "00000000-0000-4000-8000-000000000000"
	case "hostname", "idn-hostname":
		v = Host
	case "ipv4":
		v = "192.0.2.1"
	case "ipv6":
		v = "2001:db8::1"
	case "duration":
		v = "PT1M"
	default:
		switch {
		case strings.Contains(n, "email") || n == "to" || n == "from" || strings.HasSuffix(n, "recipient"):
			v = Email
		case strings.Contains(n, "url") || strings.Contains(n, "uri") || strings.Contains(n, "link") || strings.Contains(n, "endpoint"):
			v = URL
		case strings.Contains(n, "dir") || strings.Contains(n, "folder"):
			v = Workspace
		case strings.Contains(n, "path") || strings.Contains(n, "file"):
			v = File
		case strings.Contains(n, "host") || strings.Contains(n, "domain"):
			v = Host
		case n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") && len(n) > 2 && n[len(n)-3] != 'i':
			v = ID
		default:
			v = byWord(n)
		}
	}
	if s.Pattern != "" {
		if p, ok := fromPattern(s.Pattern); ok {
			v = p
		}
	}
	if s.MinLength != nil {
		for len([]rune(v)) < *s.MinLength {
			v += "x"
		}
	}
	if s.MaxLength != nil && len([]rune(v)) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

// byWord picks a value for a free-text parameter by what its name says.
func byWord(n string) string {
	switch {
	case strings.Contains(n, "user") || strings.Contains(n, "login") || strings.Contains(n, "owner") || strings.Contains(n, "author"):
		return Login
	case strings.Contains(n, "company") || strings.Contains(n, "org"):
		return Company
	case strings.Contains(n, "name") || n == "person" || n == "contact":
		return Person
	case strings.Contains(n, "query") || strings.Contains(n, "search") || n == "q" || strings.Contains(n, "keyword"):
		return Query
	}
	return Text
}

// fromPattern builds a short string matching a regular expression, when
// the expression is simple enough (literals, classes, repeats,
// alternation, groups).
func fromPattern(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !emit(re.Simplify(), &b, 0) {
		return "", false
	}
	return b.String(), true
}

func emit(re *syntax.Regexp, b *strings.Builder, depth int) bool {
	if depth > 50 || b.Len() > 256 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		r := re.Rune[0]
		// Prefer a letter or digit from the class when it has one.
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && c < re.Rune[i]+128; c++ {
				if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
					b.WriteRune(c)
					return true
				}
			}
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
	case syntax.OpCapture:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !emit(s, b, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpStar, syntax.OpQuest:
	case syntax.OpPlus:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpRepeat:
		for range re.Min {
			if !emit(re.Sub[0], b, depth+1) {
				return false
			}
		}
	default:
		return false
	}
	return true
}
