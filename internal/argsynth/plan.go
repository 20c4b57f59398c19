package argsynth

import (
	"bytes"
	"encoding/json"
	"maps"
)

// Reason says why an argument set exists; it labels the set in the plan
// and, through the scheduler, the call.
type Reason string

// The reasons, in plan order.
const (
	// ReasonRequired: the required parameters only (and one of each group
	// the descriptions say needs one): the call a minimal client makes.
	ReasonRequired Reason = "required"
	// ReasonOptional: every optional top-level parameter filled too, so
	// code behind an optional parameter runs.
	ReasonOptional Reason = "optional"
	// ReasonCandidates: values the tool itself names: its schema's
	// examples and defaults, a second enum value, the flipped boolean,
	// values quoted in the descriptions.
	ReasonCandidates Reason = "candidates"
	// ReasonProbe: marker probes in the parameters that take code,
	// expressions, templates, paths or URLs (probes.go).
	ReasonProbe Reason = "probe"
	// ReasonRetry: a set corrected after the server's error message
	// (Correct); never planned, only proposed.
	ReasonRetry Reason = "retry"
)

// Reasons are the planned reasons in order; MaxSets is how many sets Plan
// returns for one tool at most. A set equal to an earlier one is left
// out, so a tool without optional parameters gets one. With at most one
// corrected retry per set, a tool costs at most 2×MaxSets calls.
var Reasons = []Reason{ReasonRequired, ReasonOptional, ReasonCandidates, ReasonProbe}

// MaxSets bounds the sets planned per tool.
const MaxSets = 4

// Set is one argument set for one call.
type Set struct {
	Reason Reason
	// Args are the arguments to send (canonical JSON).
	Args json.RawMessage
	// Valid tells whether Args validate against the tool's input schema.
	Valid bool
	// Refs are the values taken from earlier calls' results (refs.go):
	// record Recorded(), not Args, so a random id an earlier call returned
	// keeps the manifest byte-identical.
	Refs []Ref
	// Probes are the markers this set plants (probes.go).
	Probes []Probe
}

// Plan returns the argument sets for a tool, in the order of Reasons, at
// most MaxSets, none equal to an earlier one. pool holds what earlier
// calls returned (nil for none); sets use its values where a parameter
// asks for them.
func Plan(t Tool, pool *Pool) []Set {
	c := compile(t)
	var out []Set
	for _, r := range Reasons {
		if s, ok := c.set(r, pool); ok && !repeats(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// PlanSet returns the one set of a plan made for reason r, for a
// scheduler that makes the calls of each reason in a pass of their own
// (every tool's required set, then every tool's optional set, …) so the
// later passes see more results. ok is false when the reason gives the
// tool nothing new.
func PlanSet(t Tool, r Reason, pool *Pool) (Set, bool) {
	c := compile(t)
	var earlier []Set
	for _, x := range Reasons {
		s, ok := c.set(x, pool)
		if x == r {
			return s, ok && !repeats(earlier, s)
		}
		if ok {
			earlier = append(earlier, s)
		}
	}
	return Set{}, false
}

func repeats(sets []Set, s Set) bool {
	for _, o := range sets {
		if bytes.Equal(o.Args, s.Args) {
			return true
		}
	}
	return false
}

// set builds the set for one reason.
func (c *compiled) set(r Reason, pool *Pool) (Set, bool) {
	o := opts{fill: r != ReasonRequired, over: map[string]any{}, drop: map[string]bool{}}
	var probes []Probe
	switch r {
	case ReasonCandidates:
		cand := c.candidates()
		if len(cand) == 0 {
			return Set{}, false
		}
		o = c.accept(o, cand)
		if len(o.over) == 0 {
			return Set{}, false
		}
	case ReasonProbe:
		probes = c.probes()
		if len(probes) == 0 {
			return Set{}, false
		}
		o, probes = c.acceptProbes(o, probes)
		if len(probes) == 0 {
			return Set{}, false
		}
	}
	v, valid := c.synth(o)
	refs := c.bind(v, o, pool)
	if len(refs) > 0 {
		for _, ref := range refs {
			o.over[ref.Pointer] = ref.value
		}
		v, valid = c.synth(o)
	}
	return Set{Reason: r, Args: canonical(v), Valid: valid, Refs: publicRefs(refs), Probes: probes}, true
}

// accept adds the values of extra to o one at a time, each only if the
// set still validates (or never did).
func (c *compiled) accept(o opts, extra map[string]any) opts {
	_, valid := c.synth(o)
	for _, p := range sortedKeys(extra) {
		next := o
		next.over = maps.Clone(o.over)
		next.over[p] = extra[p]
		if _, ok := c.synth(next); ok || !valid {
			o = next
		}
	}
	return o
}
