package argsynth

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
)

// candidates are the values the tool itself names for its top-level
// parameters, one per parameter, by pointer: the schema's examples, a
// default that is not empty, a second enum value, the flipped boolean, a
// value the parameter's description quotes, a value the tool's
// description gives it ("set endpoint to `alexandria`"). Each must differ
// from what the optional set already sends, or it reaches nothing new.
//
// A value from the tool's description that names a host is never taken:
// policy counts a host in the arguments as one the caller chose, and only
// the input schema's own text is recognised as the server's choice
// (policy.ServerChosen), so such a value would let a server excuse its
// own egress.
func (c *compiled) candidates() map[string]any {
	base, _ := c.synth(opts{fill: true})
	out := map[string]any{}
	g := newGen(c, false)
	root := g.gather([]*jsonschema.Schema{c.root}, "")
	for _, k := range root.props() {
		if c.tc.excluded(k, mapKeys(base)) {
			continue // the other member of its group is sent
		}
		p := g.gather(root.prop(k), "/"+escape(k))
		for _, v := range c.candidatesFor(k, p) {
			if cur, ok := base[k]; ok && same(cur, v) {
				continue
			}
			if s, ok := v.(string); ok && (s == "" || sensitive(s)) {
				continue
			}
			out["/"+escape(k)] = v
			break
		}
		if len(out) >= maxProps {
			break
		}
	}
	return out
}

// candidatesFor lists a parameter's candidate values, best first.
func (c *compiled) candidatesFor(k string, p conj) []any {
	var out []any
	out = append(out, p.examples()...)
	if d, ok := p.fallback(); ok {
		out = append(out, d)
	}
	if e := p.enum(); len(e) > 1 {
		out = append(out, e[1:min(len(e), 3)]...)
	}
	switch p.typ() {
	case "boolean":
		b, _ := p.fallback()
		out = append(out, b != true)
	case "string":
		for _, q := range examplesIn(p.description(), 3) {
			out = append(out, q)
		}
		for _, q := range mentioned(c.tc.desc, c.tool.Description, k) {
			if len(hosts.Extract(q)) == 0 {
				out = append(out, q)
			}
		}
	}
	return out
}

func mapKeys(m map[string]any) []string { return sortedKeys(m) }

// same reports whether two values encode to the same JSON.
func same(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// mentioned finds values the tool's description gives parameter k:
// "set `endpoint` to `alexandria`", "endpoint: 'search'", "k='x'".
func mentioned(lower, desc, k string) []string {
	if !strings.Contains(lower, strings.ToLower(k)) {
		return nil
	}
	if len(desc) > 8192 {
		desc = desc[:8192]
	}
	re, err := regexp.Compile("`?" + regexp.QuoteMeta(k) + "`?\\s*(?:=|:|to|as)\\s*[`'\"]([^`'\"\\n]{1,80})[`'\"]")
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range re.FindAllStringSubmatch(desc, 2) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}
