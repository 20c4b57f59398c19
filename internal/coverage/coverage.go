// Package coverage says how much of a server an audit exercised and what
// it could not observe: tools offered, called and answered, failed calls by
// class, tools never called and why, and the reasons a verdict cannot be
// given (Incomplete). What was not audited cannot pass: a server that did
// not start, answer or work, calls that were skipped, a trace that was
// cut, are reported as incomplete, never as clean.
package coverage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Compute is the coverage of a manifest. notPlanned says why tools with
// no call at all were not called (the user's choice: "calls: none", "not
// selected"); "" when every tool was planned.
func Compute(man *m.Manifest, notPlanned string) *m.Coverage {
	c := &m.Coverage{Errors: []m.ClassCount{}, NotCalled: []m.NotCalled{}, Eras: []string{}}
	c.Tools.Offered, c.Prompts.Offered = len(man.Tools), len(man.Prompts)
	c.Resources.Offered, c.Templates.Offered = len(man.Resources), len(man.ResourceTemplates)
	type state struct{ called, ok, failed bool }
	items := map[string]map[string]*state{}
	classes := map[string]int{}
	skipped := map[string]string{}
	for _, call := range man.Calls {
		if items[call.Kind] == nil {
			items[call.Kind] = map[string]*state{}
		}
		st := items[call.Kind][call.Name]
		if st == nil {
			st = &state{}
			items[call.Kind][call.Name] = st
		}
		if call.Outcome == m.CallSkipped {
			if call.Kind == "tool" && !st.called {
				skipped[call.Name] = Class(call, nil)
			}
			classes[Class(call, nil)]++
			continue
		}
		st.called = true
		delete(skipped, call.Name)
		if call.Outcome == m.CallOK {
			st.ok = true
			continue
		}
		st.failed = true
		classes[Class(call, schemaOf(man, call))]++
	}
	count := func(kind string, n *m.Count) {
		for _, st := range items[kind] {
			if st.called {
				n.Called++
			}
			if st.ok {
				n.OK++
			} else if st.failed {
				n.Error++
			}
		}
	}
	count("tool", &c.Tools)
	count("prompt", &c.Prompts)
	count("resource", &c.Resources)
	count("template", &c.Templates)
	for class, n := range classes {
		c.Errors = append(c.Errors, m.ClassCount{Class: class, Calls: n})
	}
	slices.SortFunc(c.Errors, func(a, b m.ClassCount) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Class, b.Class))
	})
	for _, t := range man.Tools {
		switch st := items["tool"][t.Name]; {
		case st != nil && st.called:
		case skipped[t.Name] == m.ErrorClassSkippedBudget:
			c.NotCalled = append(c.NotCalled, m.NotCalled{Name: t.Name, Reason: "the time budget for calls was used up"})
		case skipped[t.Name] != "":
			c.NotCalled = append(c.NotCalled, m.NotCalled{Name: t.Name, Reason: "the server died and could not be restarted"})
		default:
			c.NotCalled = append(c.NotCalled, m.NotCalled{Name: t.Name, Reason: cmp.Or(notPlanned, "not called")})
		}
	}
	switch {
	case len(man.Server.Eras) > 0:
		c.Eras = append(c.Eras, man.Server.Eras...)
	case man.Server.ProtocolVersion != "":
		c.Eras = append(c.Eras, man.Server.ProtocolVersion)
	}
	c.Incomplete = Incomplete(man)
	return c
}

// schemaOf is the input schema of the tool a call called.
func schemaOf(man *m.Manifest, c m.Call) []byte {
	if c.Kind != "tool" {
		return nil
	}
	for _, t := range man.Tools {
		if t.Name == c.Name {
			return t.InputSchema
		}
	}
	return nil
}

// Summary is the one line that says what was exercised: "exercised: 14 of
// 19 tools ok; 5 errors (3 backend unreachable, 2 invalid arguments)".
func Summary(c *m.Coverage) string {
	if c == nil {
		return "exercised: not recorded (a manifest of schema version 1)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "exercised: %d of %d tools ok", c.Tools.OK, c.Tools.Offered)
	if n := c.Prompts.Offered + c.Resources.Offered + c.Templates.Offered; n > 0 {
		fmt.Fprintf(&b, ", %d of %d prompts and resources read", c.Prompts.OK+c.Resources.OK+c.Templates.OK, n)
	}
	total := 0
	var parts []string
	for _, e := range c.Errors {
		total += e.Calls
		parts = append(parts, fmt.Sprintf("%d %s", e.Calls, strings.ReplaceAll(e.Class, "-", " ")))
	}
	if total > 0 {
		fmt.Fprintf(&b, "; %d %s (%s)", total, plural(total, "error", "errors"), strings.Join(parts, ", "))
	}
	if n := len(c.NotCalled); n > 0 {
		fmt.Fprintf(&b, "; %d not called", n)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
