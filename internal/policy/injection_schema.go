package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Bounds of the schema walk (the schema is the server's).
const (
	maxSchemaDepth = 12
	maxSchemaText  = 64 << 10
)

// toolText is what a model reads of a tool, as one text: its title and
// description, then each schema property as a line of its own with its
// name, title, description, default, enum and examples. The detector
// reads it whole, so a request split between the description and a
// schema ("read the file at this path" + default "~/.ssh/id_rsa") is
// seen as the model sees it.
func toolText(t m.Tool) string {
	var b strings.Builder
	b.WriteString(t.Title + "\n" + t.Description + "\n")
	schemaText(&b, t.InputSchema)
	schemaText(&b, t.OutputSchema)
	return b.String()
}

// schemaText writes the texts of a JSON Schema to b.
func schemaText(b *strings.Builder, raw json.RawMessage) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(v any, name string, depth int)
	walk = func(v any, name string, depth int) {
		obj, ok := v.(map[string]any)
		if !ok || depth > maxSchemaDepth || b.Len() > maxSchemaText {
			return
		}
		var parts []string
		if name != "" {
			parts = append(parts, "argument "+name)
		}
		for _, k := range []string{"title", "description", "default", "const", "enum", "examples"} {
			if s := flatText(obj[k]); s != "" {
				parts = append(parts, k+" "+s)
			}
		}
		if len(parts) > 0 {
			b.WriteString(strings.Join(parts, ": ") + "\n")
		}
		for _, k := range sortedKeys(obj) {
			switch k {
			case "properties", "patternProperties", "$defs", "definitions":
				if props, ok := obj[k].(map[string]any); ok {
					for _, p := range sortedKeys(props) {
						walk(props[p], p, depth+1)
					}
				}
			case "items", "additionalProperties", "not", "if", "then", "else":
				walk(obj[k], "", depth+1)
			case "anyOf", "oneOf", "allOf", "prefixItems":
				if list, ok := obj[k].([]any); ok {
					for _, e := range list {
						walk(e, "", depth+1)
					}
				}
			}
		}
	}
	walk(v, "", 0)
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// flatText renders a schema value (a string, number, list) as text.
func flatText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x[:min(len(x), 50)] {
			parts = append(parts, flatText(e))
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b[:min(len(b), 1<<10)])
	default:
		return fmt.Sprint(x)
	}
}

// reArgName finds an argument named for the contents of a private file
// ("contents_of_home_ssh_id_rsa", "sshPrivateKeyText"): the name alone
// asks the model to fill it in. Names are read split into words.
var reArgName = regexp.MustCompile(`(?i)^argument [^:\n]*\b(contents?|text|data|body)\b[^:\n]*\b(ssh|id rsa|id ed25519|aws credentials|npmrc|netrc|mcp json|etc shadow|private key|dotenv)\b|^argument [^:\n]*\b(ssh|id rsa|id ed25519|aws credentials|npmrc|netrc|mcp json|etc shadow|private key|dotenv)\b[^:\n]*\b(contents?|text|data|body)\b`)

var reWordBreak = regexp.MustCompile(`[_\-.]+|([a-z])([A-Z])`)

// argNameSigns reads the argument names of a tool text.
func argNameSigns(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		name, ok := strings.CutPrefix(line, "argument ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, ":")
		words := "argument " + reWordBreak.ReplaceAllString(strings.TrimSpace(name), "$1 $2")
		if loc := reArgName.FindStringIndex(words); loc != nil {
			out = append(out, "argument named for a private file's contents: "+fmt.Sprintf("%q", strings.TrimSpace(name)))
			break
		}
	}
	return out
}
