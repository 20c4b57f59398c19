package schedule

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Planner plans a server's calls as they are made, so later calls learn
// from earlier ones (internal/argsynth): every tool gets its first set of
// arguments (the required parameters) in creator-before-reader order,
// then the prompts, resources, templates, app pages and completions are
// read once, then every tool gets its other sets (optional parameters
// filled, the values the tool names, marker probes), one pass per kind
// of set; a tool that got one set only is called with it again last. A parameter takes a value an earlier call returned when the
// names agree (an id the create call made up); a call that failed with a
// message naming an argument problem gets one corrected retry right
// after. The manifest records the references, not the values, so a
// random id keeps identical behaviour byte-identical.
type Planner struct {
	sel    Selection
	tools  []argsynth.Tool
	others []Call
	pool   *argsynth.Pool
	// pass is the index in argsynth.Reasons of the pass under way, at the
	// tool at; others after the first pass.
	pass, at   int
	othersDone bool
	// repeat is the last pass: a tool called only once is called again
	// with the same arguments, so a tool that turns hostile on its second
	// call is seen (repeatAt is the tool it is at).
	repeatAt int
	first    map[string]argsynth.Set
	queue    []Call
	// sent are the argument sets each tool was called with; calls counts
	// each tool's calls, for their phases.
	sent  map[string][]string
	calls map[string]int
	byKey map[string]argsynth.Tool
}

// NewPlanner plans the calls of l as sel asks. deny rejects a value an
// earlier result returned from being sent again (a canary).
func NewPlanner(l Lists, sel Selection, deny func(string) bool) *Planner {
	p := &Planner{sel: sel, pool: argsynth.NewPool(deny), sent: map[string][]string{}, calls: map[string]int{}, byKey: map[string]argsynth.Tool{},
		first: map[string]argsynth.Set{}}
	if sel.None {
		p.pass, p.othersDone = len(argsynth.Reasons), true
		return p
	}
	var tools []argsynth.Tool
	for _, raw := range l.Tools {
		var t argsynth.Tool
		if json.Unmarshal(raw, &t) != nil || t.Name == "" || len(tools) == maxTools {
			continue
		}
		if len(sel.Tools) > 0 && !slices.Contains(sel.Tools, t.Name) {
			continue
		}
		tools = append(tools, t)
		p.byKey[t.Name] = t
	}
	p.tools = argsynth.Order(tools)
	if len(sel.Tools) == 0 { // an explicit tool list means only those
		p.others = append(p.others, planPrompts(l.Prompts)...)
		p.others = append(p.others, planResources(l.Resources)...)
		p.others = append(p.others, planTemplates(l.Templates)...)
		p.others = append(p.others, planApps(l.Tools, p.others)...)
		if l.Completions {
			p.others = append(p.others, planCompletions(l.Prompts, l.Templates)...)
		}
	}
	return p
}

// maxTools bounds the tools planned.
const maxTools = 500

// Firsts is how many first calls the plan makes (every tool once, every
// other item once): they share the budget (Budget).
func (p *Planner) Firsts() int { return len(p.tools) + len(p.others) }

// Next is the next call to make, false when there is none left.
func (p *Planner) Next() (Call, bool) {
	if len(p.queue) > 0 {
		c := p.queue[0]
		p.queue = p.queue[1:]
		return c, true
	}
	for p.pass < len(argsynth.Reasons) {
		if p.at == len(p.tools) {
			if p.pass == 0 && !p.othersDone && len(p.others) > 0 {
				c := p.others[0]
				if p.others = p.others[1:]; len(p.others) == 0 {
					p.othersDone = true
				}
				return c, true
			}
			p.pass, p.at = p.pass+1, 0
			continue
		}
		t := p.tools[p.at]
		p.at++
		if c, ok := p.toolCall(t, argsynth.Reasons[p.pass]); ok {
			return c, true
		}
	}
	for p.repeatAt < len(p.tools) {
		t := p.tools[p.repeatAt]
		p.repeatAt++
		if set, ok := p.first[t.Name]; ok && p.calls[t.Name] == 1 {
			set.Reason = ReasonRepeat
			p.sent[t.Name] = nil // the same arguments again, on purpose
			return p.callOf(t, set)
		}
	}
	return Call{}, false
}

// ReasonRepeat marks the second call of a tool that got one set only: the
// same arguments again.
const ReasonRepeat argsynth.Reason = "repeat"

// toolCall is the call of a tool with the set of the reason, false when
// the tool has none or it repeats one sent.
func (p *Planner) toolCall(t argsynth.Tool, r argsynth.Reason) (Call, bool) {
	var set argsynth.Set
	if over, ok := p.sel.ToolArgs[t.Name]; ok {
		if r != argsynth.ReasonRequired {
			return Call{}, false // the user's arguments, once
		}
		set = argsynth.Set{Reason: r, Args: over, Valid: argsynth.Validate(t.InputSchema, over) == nil}
	} else {
		s, ok := argsynth.PlanSet(t, r, p.pool)
		if !ok {
			return Call{}, false
		}
		set = s
	}
	return p.callOf(t, set)
}

// callOf numbers a set's call ("call:NAME", then "call:NAME#2", …).
func (p *Planner) callOf(t argsynth.Tool, set argsynth.Set) (Call, bool) {
	if slices.Contains(p.sent[t.Name], string(set.Args)) {
		return Call{}, false
	}
	p.sent[t.Name] = append(p.sent[t.Name], string(set.Args))
	p.calls[t.Name]++
	if _, ok := p.first[t.Name]; !ok {
		p.first[t.Name] = set
	}
	n := p.calls[t.Name]
	phase := m.PhaseCallPrefix + textsafe.Text(t.Name, maxName)
	if n > 1 {
		phase += fmt.Sprintf("#%d", n)
	}
	recorded := set.Recorded()
	return Call{Kind: "tool", Name: t.Name, Phase: phase, Method: "tools/call",
		Params: map[string]any{"name": t.Name, "arguments": set.Args}, Args: recorded, Valid: set.Valid,
		Pass: min(n, 2), Set: set}, true
}

// Done tells the planner what a call got: the result of a call that
// answered (fed to the pool, so later sets can use what it returned), or
// the message of one that failed (an RPC error, or the text of a result
// that reports a failure), which may bring one corrected retry, made
// next. A retry is never retried.
func (p *Planner) Done(c Call, result json.RawMessage, failure string) {
	if c.Kind != "tool" {
		return
	}
	t, ok := p.byKey[c.Name]
	if !ok {
		return
	}
	if failure == "" {
		p.pool.Add(c.Phase, c.Name, result)
		return
	}
	if c.Set.Reason == argsynth.ReasonRetry || c.Set.Reason == ReasonRepeat || strings.TrimSpace(failure) == "" {
		return
	}
	if _, user := p.sel.ToolArgs[c.Name]; user {
		return
	}
	if fixed, ok := argsynth.Correct(t, c.Set, failure); ok {
		if rc, ok := p.callOf(t, fixed); ok {
			p.queue = append(p.queue, rc)
		}
	}
}
