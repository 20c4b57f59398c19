package argsynth

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// gen builds one argument set from a tool's schema.
type gen struct {
	root *jsonschema.Schema
	refs map[string]*jsonschema.Schema
	tc   *toolCtx
	b    budget
	// fill fills the optional top-level parameters too.
	fill bool
	// choices are the branches taken at oneOf, anyOf and if/then/else,
	// by key; points are the keys met in this attempt, in order.
	choices map[string]int
	points  []point
	// over fixes values by JSON pointer (references, candidates, probes,
	// corrections); drop leaves properties out, by pointer.
	over map[string]any
	drop map[string]bool
	// used are the strings this set already carries, so every argument
	// gets its own.
	used     map[string]bool
	patterns map[string]*regexp.Regexp
}

type point struct {
	key string
	n   int
}

// choose returns the branch taken at a combinator, registering it as a
// point the search can move. The first branch is the first that is not
// just null: a client fills a nullable parameter with a value.
func (g *gen) choose(s *jsonschema.Schema, kw, at string, alts []*jsonschema.Schema) int {
	key := fmt.Sprintf("%p/%s@%s", s, kw, at)
	if !slices.ContainsFunc(g.points, func(p point) bool { return p.key == key }) {
		g.points = append(g.points, point{key, len(alts)})
	}
	if c, ok := g.choices[key]; ok {
		return c
	}
	first := 0
	for i, a := range alts {
		if a != nil && !onlyNull(a) {
			first = i
			break
		}
	}
	g.choices[key] = first
	return first
}

func onlyNull(s *jsonschema.Schema) bool {
	return s.Type == "null" || len(s.Types) == 1 && s.Types[0] == "null"
}

// next moves the search to the next combination of choices, the first
// point met turning fastest; false when every combination was tried.
func (g *gen) next() bool {
	for _, p := range g.points {
		if c := g.choices[p.key]; c+1 < p.n {
			g.choices[p.key] = c + 1
			return true
		}
		g.choices[p.key] = 0
	}
	return false
}

// top builds the arguments object.
func (g *gen) top() map[string]any {
	g.points, g.used, g.b.out = nil, map[string]bool{}, 0
	v := g.value(g.gather([]*jsonschema.Schema{g.root}, ""), "", "", 0)
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{} // tool arguments are always an object
}

func (g *gen) value(c conj, name, at string, depth int) any {
	if v, ok := g.over[at]; ok && at != "" {
		// The value this location would have had is still taken, so the
		// other arguments keep theirs from one set to the next.
		if c.typ() == "string" && len(c.enum()) == 0 {
			g.str(c, name, at)
		}
		if s, ok := v.(string); ok {
			g.used[s] = true
		}
		return v
	}
	g.b.out += 8
	t := c.typ()
	if depth > maxDepth || g.b.full() {
		return zero(t)
	}
	if v, ok := c.constant(); ok {
		return v
	}
	if e := c.enum(); len(e) > 0 {
		for _, v := range e {
			if v != nil {
				return v
			}
		}
		return e[0]
	}
	switch t {
	case "object":
		return g.object(c, at, depth)
	case "array":
		return g.array(c, name, at, depth)
	case "integer", "number":
		return number(c, name, t == "integer")
	case "boolean":
		if d, ok := c.fallback(); ok {
			if b, ok := d.(bool); ok {
				return b
			}
		}
		return false
	case "null":
		return nil
	}
	return g.str(c, name, at)
}

func zero(t string) any {
	switch t {
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	case "integer", "number":
		return 0
	case "boolean":
		return false
	case "null":
		return nil
	}
	return ""
}

func (g *gen) object(c conj, at string, depth int) map[string]any {
	keys := g.keys(c, at, depth)
	// A present property can bring schemas (dependentSchemas), which can
	// require more properties.
	for round := 0; round < 3; round++ {
		grew := false
		for _, k := range keys {
			_, extra := c.dependents(k)
			for _, d := range extra {
				if !slices.Contains(c, d) {
					c, grew = append(c, g.gather([]*jsonschema.Schema{d}, at)...), true
				}
			}
		}
		if !grew {
			break
		}
		keys = g.keys(c, at, depth)
	}
	obj := make(map[string]any, len(keys))
	for _, k := range keys {
		p := at + "/" + escape(k)
		sch := c.prop(k)
		if len(sch) == 0 {
			sch = c.additional()
		}
		obj[k] = g.value(g.gather(sch, p), k, p, depth+1)
	}
	return obj
}

// keys chooses the properties of an object: the required ones, one of
// each group the description says needs one, the optional ones when
// filling, enough for minProperties, the fixed ones, and what the present
// ones make required.
func (g *gen) keys(c conj, at string, depth int) []string {
	forbidden := c.forbidden()
	var keys []string
	add := func(k string) {
		if !g.drop[at+"/"+escape(k)] && !slices.Contains(keys, k) && !slices.Contains(forbidden, k) && len(keys) < maxProps {
			keys = append(keys, k)
		}
	}
	for _, k := range c.required() {
		add(k)
	}
	if depth == 0 {
		for _, gr := range g.tc.groups {
			if gr.need && !slices.ContainsFunc(keys, gr.has) {
				add(gr.names[0])
			}
		}
	}
	for _, k := range sortedKeys(g.over) {
		if parent, key, ok := cutLast(k); ok && parent == at {
			add(key)
		}
	}
	if g.fill && depth == 0 {
		for _, k := range c.props() {
			if !g.tc.excluded(k, keys) && !readOnly(c.prop(k)) {
				add(k)
			}
		}
	}
	for _, s := range c {
		for _, k := range c.props() {
			if s.MinProperties == nil || len(keys) >= *s.MinProperties {
				break
			}
			add(k)
		}
	}
	for i := 0; i < len(keys); i++ {
		names, _ := c.dependents(keys[i])
		for _, n := range names {
			add(n)
		}
	}
	// The required in the schema's order, then the rest by name: the
	// order values are made in, so each keeps its value in every set.
	req := c.required()
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(req, a), slices.Index(req, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return keys
}

func readOnly(list []*jsonschema.Schema) bool {
	return slices.ContainsFunc(list, func(s *jsonschema.Schema) bool { return s.ReadOnly || s.Deprecated })
}

// additional is the schema for properties the object does not name.
func (c conj) additional() []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range c {
		if s.AdditionalProperties != nil {
			out = append(out, s.AdditionalProperties)
		}
	}
	return out
}

func (g *gen) array(c conj, name, at string, depth int) []any {
	l := c.arrays()
	n := max(l.minItems, 1) // one item shows the shape
	if l.maxItems >= 0 && n > l.maxItems {
		n = l.maxItems
	}
	n = min(n, maxArray)
	out := make([]any, 0, n)
	for i := range n {
		p := at + "/" + strconv.Itoa(i)
		sch := l.items
		if i < len(l.prefix) {
			sch = l.prefix[i]
		}
		if i == 0 && len(l.contains) > 0 {
			sch = append(slices.Clone(sch), l.contains...)
		}
		v := g.value(g.gather(sch, p), singular(name), p, depth+1)
		if f, ok := v.(float64); ok && l.unique {
			v = f + float64(i)
		} else if k, ok := v.(int64); ok && l.unique {
			v = k + int64(i)
		}
		out = append(out, v)
	}
	return out
}

func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "ies") && len(name) > 3:
		return name[:len(name)-3] + "y"
	case strings.HasSuffix(name, "sses"), strings.HasSuffix(name, "xes"):
		return name[:len(name)-2]
	case strings.HasSuffix(name, "ss"):
		return name
	}
	return strings.TrimSuffix(name, "s")
}
