package coverage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Tally is what many audits exercised together (a batch, the study): every
// call each made (tools, prompts and resources; retries, second argument
// sets and probes each count; a skipped call counts as made and not ok),
// and the tools offered, called and answered ok at least once.
type Tally struct {
	Servers   int
	Calls, OK int
	Tools     m.Count
	// errors are the failed calls by class.
	errors map[string]int
}

// Add counts one audit's manifest.
func (t *Tally) Add(man *m.Manifest) {
	if man == nil {
		return
	}
	if t.errors == nil {
		t.errors = map[string]int{}
	}
	t.Servers++
	c := man.Coverage
	if c == nil {
		c = Compute(man, "")
	}
	for _, call := range man.Calls {
		t.Calls++
		if call.Outcome == m.CallOK {
			t.OK++
		}
	}
	for _, e := range c.Errors {
		t.errors[e.Class] += e.Calls
	}
	t.Tools.Offered += c.Tools.Offered
	t.Tools.Called += c.Tools.Called
	t.Tools.OK += c.Tools.OK
	t.Tools.Error += c.Tools.Error
}

// Errors are the failed calls by class, most first.
func (t *Tally) Errors() []m.ClassCount {
	out := make([]m.ClassCount, 0, len(t.errors))
	for class, n := range t.errors {
		out = append(out, m.ClassCount{Class: class, Calls: n})
	}
	slices.SortFunc(out, func(a, b m.ClassCount) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Class, b.Class))
	})
	return out
}

// String is the one line a batch prints: "calls: 412 of 480 ok (86%);
// tools: 300 of 352 offered answered ok at least once (85%); failed calls:
// 40 backend unreachable, 28 invalid arguments".
func (t *Tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "calls: %d of %d ok (%s); tools: %d of %d offered answered ok at least once (%s)",
		t.OK, t.Calls, percent(t.OK, t.Calls), t.Tools.OK, t.Tools.Offered, percent(t.Tools.OK, t.Tools.Offered))
	var parts []string
	for _, e := range t.Errors() {
		parts = append(parts, fmt.Sprintf("%d %s", e.Calls, strings.ReplaceAll(e.Class, "-", " ")))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, "; failed calls: %s", strings.Join(parts, ", "))
	}
	return b.String()
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}
