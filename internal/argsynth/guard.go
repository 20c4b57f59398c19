package argsynth

import (
	"errors"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The validator (jsonschema-go) follows a schema wherever it leads: a
// schema that refers to itself at the same instance location ({"$ref":
// "#"}, an allOf that contains itself) recurses until the goroutine's
// stack overflows, which kills the process, and nested oneOfs of
// references take exponential time. A tool's schema comes from the
// server, so before a schema reaches the validator, guard measures it:
// a cycle that does not descend into the instance, or a validation cost
// past maxCost schema evaluations for an instance maxDepth deep, and the
// schema is not validated (its sets count as invalid).
var (
	errCycle  = errors.New("input schema refers to itself without descending into the value")
	errCostly = errors.New("input schema is too costly to validate")
)

// maxCost bounds the schema evaluations one validation may need.
const maxCost = 50000

type guardian struct {
	root    *jsonschema.Schema
	anchors map[string]*jsonschema.Schema
	state   map[*jsonschema.Schema]int // 1 visiting, 2 done (same-location walk)
	cost    map[costKey]int
	unknown bool // a reference guard cannot follow, in a schema with $id or $dynamicRef
}

type costKey struct {
	s *jsonschema.Schema
	d int
}

// guard reports whether root is safe to hand to the validator.
func guard(root *jsonschema.Schema) error {
	g := &guardian{root: root, anchors: map[string]*jsonschema.Schema{}, state: map[*jsonschema.Schema]int{}, cost: map[costKey]int{}}
	var all []*jsonschema.Schema
	if !tree(root, &all) {
		return errCostly
	}
	ids := false
	for _, s := range all {
		if s.Anchor != "" {
			g.anchors[s.Anchor] = s
		}
		ids = ids || s != root && s.ID != "" || s.DynamicRef != "" || s.DynamicAnchor != ""
	}
	for _, s := range all {
		if g.cyclic(s) {
			return errCycle
		}
	}
	if g.unknown && ids {
		return errCycle // an $id-relative or dynamic reference could close a cycle guard cannot see
	}
	if g.costOf(root, 0) > maxCost {
		return errCostly
	}
	return nil
}

// tree lists every schema written inside root (not following
// references); false past 4×maxNodes of them.
func tree(s *jsonschema.Schema, out *[]*jsonschema.Schema) bool {
	if s == nil {
		return true
	}
	if *out = append(*out, s); len(*out) > 4*maxNodes {
		return false
	}
	for _, c := range slices.Concat(written(s), children(s)) {
		if !tree(c, out) {
			return false
		}
	}
	for _, d := range s.Defs {
		if !tree(d, out) {
			return false
		}
	}
	for _, d := range s.Definitions {
		if !tree(d, out) {
			return false
		}
	}
	return true
}

// written are the schemas written at the same location as s.
func written(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, k := range sortedKeys(s.DependentSchemas) {
		out = append(out, s.DependentSchemas[k])
	}
	for _, k := range sortedKeys(s.DependencySchemas) {
		out = append(out, s.DependencySchemas[k])
	}
	return out
}

// same are the schemas applied at the same instance location as s.
func (g *guardian) same(s *jsonschema.Schema) []*jsonschema.Schema {
	out := written(s)
	if s.Ref != "" {
		out = append(out, g.ref(s.Ref))
	}
	return out
}

// ref resolves a reference the way the validator would, as far as guard
// can.
func (g *guardian) ref(ref string) *jsonschema.Schema {
	switch {
	case ref == "#":
		return g.root
	case strings.HasPrefix(ref, "#/"):
		if t := pointer(g.root, strings.Split(ref[2:], "/")); t != nil {
			return t
		}
	case strings.HasPrefix(ref, "#"):
		if t := g.anchors[ref[1:]]; t != nil {
			return t
		}
	}
	g.unknown = true
	return nil
}

// cyclic reports whether s reaches itself through same-location edges.
func (g *guardian) cyclic(s *jsonschema.Schema) bool {
	switch g.state[s] {
	case 1:
		return true
	case 2:
		return false
	}
	g.state[s] = 1
	for _, c := range g.same(s) {
		if c != nil && g.cyclic(c) {
			return true
		}
	}
	g.state[s] = 2
	return false
}

// costOf bounds the evaluations validating one instance against s takes,
// for an instance maxDepth deep: every schema at the same location, and
// every schema of a child location one level down. It saturates past
// maxCost.
func (g *guardian) costOf(s *jsonschema.Schema, d int) int {
	if s == nil || d > maxDepth+1 {
		return 0
	}
	k := costKey{s, d}
	if c, ok := g.cost[k]; ok {
		return c
	}
	g.cost[k] = maxCost + 1 // a cycle met again while summing counts as costly
	total := 1
	for _, c := range g.same(s) {
		total = min(total+g.costOf(c, d), maxCost+1)
	}
	for _, c := range children(s) {
		total = min(total+g.costOf(c, d+1), maxCost+1)
	}
	g.cost[k] = total
	return total
}

// children are the schemas applied to locations inside s's instance.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Items, s.AdditionalItems, s.AdditionalProperties, s.Contains, s.PropertyNames,
		s.UnevaluatedItems, s.UnevaluatedProperties}
	out = append(out, s.PrefixItems...)
	out = append(out, s.ItemsArray...)
	for _, k := range sortedKeys(s.Properties) {
		out = append(out, s.Properties[k])
	}
	for _, k := range sortedKeys(s.PatternProperties) {
		out = append(out, s.PatternProperties[k])
	}
	return out
}
