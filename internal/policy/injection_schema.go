package policy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Bounds of the schema walk (the schema is the server's): a schema deeper,
// larger or with more text than this is judged up to the bound, and the
// rest is reported as not judged.
const (
	maxSchemaBytes  = 1 << 20
	maxSchemaDepth  = 64
	maxSchemaValues = 20000
	maxSchemaText   = 256 << 10
	maxRefHops      = 16
)

// schemaNode is one schema object of a tool's schema: the property name
// it is reached by, its prose (every string it holds that is not a value:
// title, description, $comment, annotation and unknown keywords, the
// names of unknown keywords), its values (default, const, enum, examples:
// what the model may send), its local references and its JSON pointer.
type schemaNode struct {
	path, name    string
	prose, values []string
	refs          []string
}

// schemaWalk collects the nodes of one schema. Every keyword is visited:
// the applicators (allOf, anyOf, oneOf, not, if/then/else, items,
// prefixItems, contains, additionalProperties, patternProperties,
// dependentSchemas, propertyNames, …) as schemas, $defs and definitions
// as schemas whether or not a $ref reaches them, everything else as text.
type schemaWalk struct {
	nodes  []schemaNode
	byPath map[string]int
	values int
	text   int
	cut    string
}

// schemaMaps hold schemas by name; schemaKeys hold a schema or a list of
// them; valueKeys hold what the model may send.
var (
	schemaMaps = set("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
	schemaKeys = set("items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "not", "if", "then", "else",
		"contains", "propertyNames", "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems")
	valueKeys = set("default", "const", "enum", "examples", "example")
	refKeys   = set("$ref", "$dynamicRef", "$recursiveRef")
	// keywords are JSON Schema's own words: a key that is none of them
	// is text the server chose, so it is read too.
	keywords = set("type", "format", "pattern", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "minContains", "maxContains",
		"title", "description", "$comment", "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "readOnly", "writeOnly",
		"deprecated", "contentEncoding", "contentMediaType", "dependentRequired", "nullable", "discriminator", "xml", "externalDocs")
)

func set(words ...string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[w] = true
	}
	return out
}

// walkSchema parses and walks raw (a tool's input or output schema).
func walkSchema(raw json.RawMessage) *schemaWalk {
	w := &schemaWalk{byPath: map[string]int{}}
	if len(raw) == 0 {
		return w
	}
	if len(raw) > maxSchemaBytes {
		w.cut = fmt.Sprintf("larger than %d KiB", maxSchemaBytes>>10)
		return w
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		w.cut = "not readable as JSON (or nested too deep to read)"
		return w
	}
	w.schema(v, "", "", 0)
	return w
}

// stop reports (and records) a bound reached.
func (w *schemaWalk) stop(depth int) bool {
	switch {
	case w.cut != "":
	case depth > maxSchemaDepth:
		w.cut = fmt.Sprintf("nested deeper than %d levels", maxSchemaDepth)
	case w.values > maxSchemaValues:
		w.cut = fmt.Sprintf("more than %d values", maxSchemaValues)
	default:
		return false
	}
	return true
}

// schema walks a schema (or a list of schemas) at path.
func (w *schemaWalk) schema(v any, path, name string, depth int) {
	w.values++
	if w.stop(depth) {
		return
	}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			w.schema(e, fmt.Sprintf("%s/%d", path, i), "", depth+1)
		}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	idx := len(w.nodes)
	w.nodes = append(w.nodes, schemaNode{path: path, name: name})
	w.byPath[path] = idx
	if name != "" {
		w.add(idx, false, nameWords(name))
	}
	for _, k := range sortedKeys(obj) {
		val, p := obj[k], path+"/"+escapePointer(k)
		switch {
		case schemaMaps[k]:
			if m, ok := val.(map[string]any); ok {
				for _, n := range sortedKeys(m) {
					w.schema(m[n], p+"/"+escapePointer(n), n, depth+2)
				}
				continue
			}
			w.collect(val, idx, false, depth+1)
		case schemaKeys[k]:
			w.schema(val, p, "", depth+1)
		case valueKeys[k]:
			w.collect(val, idx, true, depth+1)
		case refKeys[k]:
			if s, ok := val.(string); ok {
				w.nodes[idx].refs = append(w.nodes[idx].refs, s)
			}
		default:
			if !keywords[k] {
				w.add(idx, false, nameWords(k))
			}
			w.collect(val, idx, false, depth+1)
		}
	}
}

// collect adds every string in v (and the keys of objects in it) to node
// idx, as values or prose.
func (w *schemaWalk) collect(v any, idx int, values bool, depth int) {
	w.values++
	if w.stop(depth) {
		return
	}
	switch x := v.(type) {
	case string:
		w.add(idx, values, x)
	case []any:
		for _, e := range x {
			w.collect(e, idx, values, depth+1)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			w.add(idx, values, nameWords(k))
			w.collect(x[k], idx, values, depth+1)
		}
	}
}

func (w *schemaWalk) add(idx int, values bool, s string) {
	if strings.TrimSpace(s) == "" || w.cut != "" {
		return
	}
	if room := maxSchemaText - w.text; len(s) > room {
		w.cut = fmt.Sprintf("more than %d KiB of text", maxSchemaText>>10)
		s = strings.ToValidUTF8(s[:room], "")
	}
	w.text += len(s)
	if values {
		w.nodes[idx].values = append(w.nodes[idx].values, s)
	} else {
		w.nodes[idx].prose = append(w.nodes[idx].prose, s)
	}
}

// referred lists the nodes a node's local $refs lead to, following refs
// of refs, each node once (a cycle ends where it began), at most
// maxRefHops deep. A reference to another document is not fetched.
func (w *schemaWalk) referred(idx int) []int {
	var out []int
	seen := map[int]bool{idx: true}
	next := []int{idx}
	for hop := 0; hop < maxRefHops && len(next) > 0; hop++ {
		var more []int
		for _, n := range next {
			for _, ref := range w.nodes[n].refs {
				t, ok := w.resolve(ref)
				if ok && !seen[t] {
					seen[t] = true
					out = append(out, t)
					more = append(more, t)
				}
			}
		}
		next = more
	}
	return out
}

// resolve finds the node a local reference ("#/$defs/path", "#") points at.
func (w *schemaWalk) resolve(ref string) (int, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return 0, false
	}
	if s, err := url.PathUnescape(frag); err == nil {
		frag = s
	}
	i, ok := w.byPath[frag]
	return i, ok
}

func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
