package argsynth

import (
	"encoding/json"
	"maps"
	"regexp"

	"github.com/google/jsonschema-go/jsonschema"
)

// opts shape one set: fill the optional parameters, fix values at
// pointers, leave properties out.
type opts struct {
	fill bool
	over map[string]any
	drop map[string]bool
}

func newGen(c *compiled, fill bool) *gen {
	return &gen{root: c.root, refs: map[string]*jsonschema.Schema{}, tc: c.tc, fill: fill,
		choices: map[string]int{}, over: map[string]any{}, drop: map[string]bool{},
		used: map[string]bool{}, patterns: map[string]*regexp.Regexp{}}
}

// synth builds a set and reports whether it validates. It searches the
// combinations of oneOf, anyOf and if/then/else branches (maxAttempts)
// for one that validates, and returns the first attempt when none does.
func (c *compiled) synth(o opts) (map[string]any, bool) {
	if c.err != nil {
		return map[string]any{}, false
	}
	g := newGen(c, o.fill)
	maps.Copy(g.over, o.over)
	maps.Copy(g.drop, o.drop)
	var first map[string]any
	for range maxAttempts {
		v := g.top()
		if first == nil {
			first = v
		}
		if c.valid(v) {
			return v, true
		}
		if !g.next() || g.b.full() {
			break
		}
	}
	return first, false
}

// valid checks a value against the tool's resolved schema, as the JSON a
// server would receive.
func (c *compiled) valid(v any) bool {
	if c.rs == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var round any
	if json.Unmarshal(b, &round) != nil {
		return false
	}
	return c.rs.Validate(round) == nil
}

// canonical is a set's canonical JSON.
func canonical(v map[string]any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}
