package argsynth

import (
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A conj is the conjunction of schemas one location of a value must
// satisfy: the schema itself, what it references, its allOf members, and
// the branch chosen for each oneOf, anyOf and if/then/else among them.
// Reading constraints from the conjunction (the tightest bound, the union
// of required names) is what lets combinators nest without a merge step.
type conj []*jsonschema.Schema

// gather collects the conjunction for the schemas in, at instance
// location at (a JSON pointer, which keys the choices).
func (g *gen) gather(in []*jsonschema.Schema, at string) conj {
	var out conj
	var add func(s *jsonschema.Schema, depth int)
	add = func(s *jsonschema.Schema, depth int) {
		if s == nil || depth > maxRefHops || slices.Contains(out, s) || !g.b.spend() {
			return
		}
		out = append(out, s)
		if s.Ref != "" {
			add(g.resolve(s.Ref), depth+1)
		}
		for _, a := range s.AllOf {
			add(a, depth+1)
		}
		if len(s.OneOf) > 0 {
			i := g.choose(s, "oneOf", at, s.OneOf)
			add(s.OneOf[i], depth+1)
			// oneOf fails when another branch holds too: its const and
			// enum values and its one required name are avoided.
			for j, o := range s.OneOf[:min(len(s.OneOf), 8)] {
				if j != i && o != nil {
					out = append(out, &jsonschema.Schema{Not: o})
				}
			}
		}
		if len(s.AnyOf) > 0 {
			add(s.AnyOf[g.choose(s, "anyOf", at, s.AnyOf)], depth+1)
		}
		if s.If != nil {
			// Choice 0 makes the condition true and satisfies then;
			// choice 1 satisfies else.
			if g.choose(s, "if", at, []*jsonschema.Schema{s.Then, s.Else}) == 0 {
				add(s.If, depth+1)
				add(s.Then, depth+1)
			} else {
				add(s.Else, depth+1)
			}
		}
	}
	for _, s := range in {
		add(s, 0)
	}
	return out
}

// resolve finds a local reference: "#", "#/$defs/x", "#/definitions/x" or
// any JSON pointer through the keywords that hold schemas. Remote
// references and anchors are not followed (the validator reports them).
func (g *gen) resolve(ref string) *jsonschema.Schema {
	if s, ok := g.refs[ref]; ok {
		return s
	}
	var s *jsonschema.Schema
	if ref == "#" {
		s = g.root
	} else if p, ok := strings.CutPrefix(ref, "#/"); ok {
		s = pointer(g.root, strings.Split(p, "/"))
	}
	g.refs[ref] = s
	return s
}

// pointer walks a JSON pointer's segments through a schema.
func pointer(s *jsonschema.Schema, segs []string) *jsonschema.Schema {
	for i := 0; i < len(segs) && s != nil; i++ {
		seg := strings.ReplaceAll(strings.ReplaceAll(segs[i], "~1", "/"), "~0", "~")
		next := ""
		if i+1 < len(segs) {
			next = strings.ReplaceAll(strings.ReplaceAll(segs[i+1], "~1", "/"), "~0", "~")
		}
		switch seg {
		case "$defs":
			s, i = s.Defs[next], i+1
		case "definitions":
			s, i = s.Definitions[next], i+1
		case "properties":
			s, i = s.Properties[next], i+1
		case "patternProperties":
			s, i = s.PatternProperties[next], i+1
		case "dependentSchemas":
			s, i = s.DependentSchemas[next], i+1
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list := map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems}[seg]
			s, i = index(list, next), i+1
		case "items":
			if n, err := strconv.Atoi(next); err == nil && s.ItemsArray != nil {
				s, i = index(s.ItemsArray, strconv.Itoa(n)), i+1
			} else {
				s = s.Items
			}
		case "not":
			s = s.Not
		case "if":
			s = s.If
		case "then":
			s = s.Then
		case "else":
			s = s.Else
		case "additionalProperties":
			s = s.AdditionalProperties
		case "contains":
			s = s.Contains
		default:
			return nil
		}
	}
	return s
}

func index(list []*jsonschema.Schema, seg string) *jsonschema.Schema {
	n, err := strconv.Atoi(seg)
	if err != nil || n < 0 || n >= len(list) {
		return nil
	}
	return list[n]
}

// prop is the conjunction's schemas for property k.
func (c conj) prop(k string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range c {
		if p := s.Properties[k]; p != nil {
			out = append(out, p)
		}
	}
	return out
}

// maxNames bounds the property names read from one object's schemas:
// past maxProps a set cannot carry them anyway.
const maxNames = 4 * maxProps

// props lists the properties the conjunction names, sorted, at most
// maxNames.
func (c conj) props() []string {
	var out []string
	for _, s := range c {
		for k := range s.Properties {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(len(out), maxNames)]
}

// required lists the required names, first mention first, at most
// maxNames.
func (c conj) required() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range c {
		for _, k := range s.Required {
			if !seen[k] && len(out) < maxNames {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// dependents are the names a present property k makes required
// (dependentRequired, draft-07 dependencies) and the schemas it adds
// (dependentSchemas).
func (c conj) dependents(k string) ([]string, []*jsonschema.Schema) {
	var names []string
	var schemas []*jsonschema.Schema
	for _, s := range c {
		names = append(names, s.DependentRequired[k]...)
		names = append(names, s.DependencyStrings[k]...)
		if d := s.DependentSchemas[k]; d != nil {
			schemas = append(schemas, d)
		}
		if d := s.DependencySchemas[k]; d != nil {
			schemas = append(schemas, d)
		}
	}
	return names, schemas
}

// forbidden are the names a "not": {"required": [...]} rules out.
func (c conj) forbidden() []string {
	var out []string
	for _, s := range c {
		if s.Not != nil && len(s.Not.Required) == 1 {
			out = append(out, s.Not.Required[0])
		}
	}
	return out
}

// description is the first description in the conjunction.
func (c conj) description() string {
	for _, s := range c {
		if s.Description != "" {
			return s.Description
		}
	}
	return ""
}
