package argsynth

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Ref says that the value at Pointer in a set's arguments was taken from
// an earlier call's result. The manifest records the reference, not the
// value: an id the server made up at random in one run and another in the
// next keeps the manifest byte-identical, and a value the server chose
// (a host in a URL it returned) is never mistaken for one the caller
// supplied, because the recorded arguments do not contain it.
//
// In the recorded arguments (Set.Recorded) the value at Pointer is
// replaced by {"$ref_call": Call, "field": Field}; the list of Refs is
// the parallel structure, for a scheduler that stores them apart.
type Ref struct {
	// Pointer is where in the arguments (RFC 6901): "/entities/0/name".
	Pointer string `json:"pointer"`
	// Call is the earlier call as the scheduler named it in Pool.Add (its
	// phase): "call:create_entities".
	Call string `json:"$ref_call"`
	// Field is where in that call's result, dotted with list indexes: a
	// text item that is JSON is walked as JSON
	// ("content[0].text[0].name"), and ":KEY" names the value of a "KEY:
	// value" line of a text item ("content[0].text:ID").
	Field string `json:"field"`
}

// boundRef is a reference with the value it stands for.
type boundRef struct {
	Ref
	value any
}

func publicRefs(b []boundRef) []Ref {
	var out []Ref
	for _, r := range b {
		out = append(out, r.Ref)
	}
	return out
}

// Recorded returns the arguments as the manifest records them: Args with
// the value at each reference's pointer replaced by the reference.
func (s Set) Recorded() json.RawMessage {
	if len(s.Refs) == 0 {
		return s.Args
	}
	var v any
	if json.Unmarshal(s.Args, &v) != nil {
		return s.Args
	}
	for _, r := range s.Refs {
		v = setAt(v, splitPointer(r.Pointer), map[string]any{"$ref_call": r.Call, "field": r.Field})
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s.Args
	}
	return b
}

// leaf is a string or number in a synthesized set.
type leaf struct {
	ptr, key string
	value    any
}

// leaves lists a set's strings and numbers, sorted by pointer.
func leaves(v any, ptr, key string, out *[]leaf) {
	if len(*out) >= maxPerCall {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			leaves(x[k], ptr+"/"+escape(k), k, out)
		}
	case []any:
		for i, item := range x {
			leaves(item, ptr+"/"+strconv.Itoa(i), key, out)
		}
	case string, int64, float64, json.Number:
		*out = append(*out, leaf{ptr, key, x})
	}
}

// bind replaces the values of a set that a pool entry matches, one at a
// time, each only if the set still validates (or never did).
func (c *compiled) bind(v map[string]any, o opts, pool *Pool) []boundRef {
	if pool == nil || len(pool.entries) == 0 {
		return nil
	}
	_, valid := c.synth(o)
	var ls []leaf
	leaves(v, "", "", &ls)
	var out []boundRef
	over := maps.Clone(o.over)
	for _, lf := range ls {
		if _, fixed := o.over[lf.ptr]; fixed {
			continue // a candidate or a probe was put there on purpose
		}
		e, ok := pool.match(lf.key, c.descAt(lf.ptr), c.tc, c.tool.Name)
		if !ok {
			continue
		}
		val, ok := convert(e.value, lf.value)
		if !ok || fileForDir(lf.value, val) || fileForDir(val, lf.value) {
			continue
		}
		next := maps.Clone(over)
		next[lf.ptr] = val
		if _, ok := c.synth(opts{fill: o.fill, over: next, drop: o.drop}); ok || !valid {
			over = next
			out = append(out, boundRef{Ref{Pointer: lf.ptr, Call: e.call, Field: e.field}, val})
		}
	}
	return out
}

// convert makes an entry's value the type the parameter has.
func convert(v, like any) (any, bool) {
	switch like.(type) {
	case string:
		switch x := v.(type) {
		case string:
			return x, true
		case json.Number:
			return x.String(), true
		}
	case int64, float64, json.Number:
		switch x := v.(type) {
		case json.Number:
			return x, true
		case string:
			if _, err := strconv.ParseFloat(x, 64); err == nil {
				return json.Number(x), true
			}
		}
	}
	return nil, false
}

// descAt is the description of the schema at a pointer of the arguments,
// found through properties and items (the first branch of a combinator);
// an item without one has its list's ("An array of entity names").
func (c *compiled) descAt(ptr string) string {
	g := newGen(c, false)
	cur := g.gather([]*jsonschema.Schema{c.root}, "")
	desc := ""
	for _, seg := range splitPointer(ptr) {
		if _, err := strconv.Atoi(seg); err == nil {
			cur = g.gather(cur.arrays().items, "")
		} else {
			cur, desc = g.gather(cur.prop(seg), ""), ""
		}
		if d := cur.description(); d != "" {
			desc = d
		}
		if len(cur) == 0 {
			break
		}
	}
	return strings.ToLower(desc)
}

// genericNouns are the words of containers, which say nothing about what
// a value names.
var genericNouns = []string{"", "content", "text", "structured", "result", "results", "data", "item", "list",
	"value", "response", "output", "mcp", "tool", "server", "type", "meta"}

func nounSet(ws []string) []string {
	var out []string
	for _, w := range ws {
		if w = singular(strings.ToLower(w)); !slices.Contains(genericNouns, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// fileForDir: the parameter takes a directory (its value is an absolute
// path with no extension: the workspace, a folder in it) and the entry
// is a file's path ("Path to the Git repository" is not README.md).
// Called the other way round, the parameter takes a file and the entry is
// a directory (desktop-commander's list_directory returns the directory
// it listed as "filePath", and write_file and edit_block were given the
// workspace to write: "EISDIR: illegal operation on a directory").
func fileForDir(made, ref any) bool {
	d, ok1 := made.(string)
	f, ok2 := ref.(string)
	return ok1 && ok2 && strings.HasPrefix(d, "/") && path.Ext(d) == "" && strings.HasPrefix(f, "/") && path.Ext(f) != ""
}
