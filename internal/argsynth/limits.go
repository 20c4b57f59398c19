package argsynth

// Bounds on synthesis. A tool's schema is hostile input: it can be cyclic
// ($ref to itself), deep, wide, or promise an array of a million items, and
// none of that may hang the audit or grow its memory. Every limit below is
// enforced per synthesized set and tested (limits_test.go, FuzzPlan).
const (
	// maxSchemaBytes: larger input schemas get {} (and are reported
	// invalid), never parsed.
	maxSchemaBytes = 1 << 20
	// maxDepth bounds the nesting of a synthesized value and of the schema
	// members (allOf, $ref, branches) gathered for one location.
	maxDepth = 8
	// maxNodes bounds the schema nodes visited for one set, across every
	// attempt of the search for a valid one.
	maxNodes = 20000
	// maxOutBytes bounds a synthesized set's size (approximately, while
	// building): past it, further values are the smallest of their type.
	maxOutBytes = 16 << 10
	// maxAttempts bounds the search over oneOf, anyOf and if/then/else
	// choices for a set that validates.
	maxAttempts = 12
	// maxProps bounds the properties filled in one object.
	maxProps = 48
	// maxArray bounds the items of one array, whatever minItems says.
	maxArray = 16
	// maxRefHops bounds a chain of $ref followed for one location.
	maxRefHops = 16
)

// budget counts what one set has consumed.
type budget struct {
	nodes, out int
}

// spend takes one schema node from the budget and reports whether any was
// left.
func (b *budget) spend() bool {
	b.nodes++
	return b.nodes <= maxNodes
}

// full reports whether the output size is used up.
func (b *budget) full() bool { return b.out > maxOutBytes || b.nodes > maxNodes }
