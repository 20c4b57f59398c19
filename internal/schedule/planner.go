package schedule

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Planner plans a server's calls as they are made, so later calls learn
// from earlier ones (internal/argsynth): every tool gets its first set of
// arguments (the required parameters) in setup-before-creator-before-
// reader order, then the prompts, resources, templates, app pages and
// completions are read once, then every tool gets its other sets
// (optional parameters filled, the values the tool names, marker
// probes), one pass per kind of set; the tools that end what the others
// use (close the page, kill a process) get all their passes after that;
// a tool that got one set only is called with it again last. A parameter
// takes a value an earlier call returned when the names agree (an id the
// create call made up); a call that failed with a message naming an
// argument problem gets one corrected retry right after, and one whose
// message names another of the server's tools ("use git_set_working_dir
// first") gets that tool's call and then its own again. The manifest
// records the references, not the values, so a random id keeps identical
// behaviour byte-identical.
type Planner struct {
	sel Selection
	// groups are the tools by when their passes run: every tool but the
	// enders, then the enders (argsynth.Ender); tools is both, in order.
	groups [2][]argsynth.Tool
	tools  []argsynth.Tool
	others []Call
	pool   *argsynth.Pool
	// pass is the index in argsynth.Reasons of the pass under way in
	// group g, at the tool at; others after the first pass of the first
	// group.
	g, pass, at int
	othersDone  bool
	// repeat is each group's last pass: a tool called only once is called
	// again with the same arguments, so a tool that turns hostile on its
	// second call is seen (repeatAt is the tool it is at).
	repeatAt int
	first    map[string]argsynth.Set
	queue    []Call
	// sent are the argument sets each tool was called with; calls counts
	// each tool's calls, for their phases.
	sent  map[string][]string
	calls map[string]int
	byKey map[string]argsynth.Tool
	// named counts the calls a tool got because an error named it;
	// namedBy the failing tools that brought one, each once.
	named   map[string]int
	namedBy map[string]bool
}

// NewPlanner plans the calls of l as sel asks. deny rejects a value an
// earlier result returned from being sent again (a canary).
func NewPlanner(l Lists, sel Selection, deny func(string) bool) *Planner {
	p := &Planner{sel: sel, pool: argsynth.NewPool(deny), sent: map[string][]string{}, calls: map[string]int{}, byKey: map[string]argsynth.Tool{},
		first: map[string]argsynth.Set{}, named: map[string]int{}, namedBy: map[string]bool{}}
	if sel.None {
		p.g, p.othersDone = len(p.groups), true
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
	for _, t := range p.tools {
		g := 0
		if argsynth.Classify(t) == argsynth.Ender {
			g = 1
		}
		p.groups[g] = append(p.groups[g], t)
	}
	p.tools = append(slices.Clone(p.groups[0]), p.groups[1]...)
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
	for p.g < len(p.groups) {
		group := p.groups[p.g]
		if p.pass == len(argsynth.Reasons) {
			if c, ok := p.repeat(group); ok {
				return c, true
			}
			p.g, p.pass, p.at, p.repeatAt = p.g+1, 0, 0, 0
			continue
		}
		if p.at == len(group) {
			if p.g == 0 && p.pass == 0 && !p.othersDone && len(p.others) > 0 {
				c := p.others[0]
				if p.others = p.others[1:]; len(p.others) == 0 {
					p.othersDone = true
				}
				return c, true
			}
			p.pass, p.at = p.pass+1, 0
			continue
		}
		t := group[p.at]
		p.at++
		if c, ok := p.toolCall(t, argsynth.Reasons[p.pass]); ok {
			return c, true
		}
	}
	return Call{}, false
}

// repeat is the next call of the group's repeat pass, false at its end.
func (p *Planner) repeat(group []argsynth.Tool) (Call, bool) {
	for p.repeatAt < len(group) {
		t := group[p.repeatAt]
		p.repeatAt++
		if set, ok := p.first[t.Name]; ok && p.calls[t.Name] == 1 {
			set.Reason = ReasonRepeat
			return p.numbered(t, set), true // the same arguments again, on purpose
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

// callOf numbers a set's call ("call:NAME", then "call:NAME#2", …), false
// when the tool got that set already.
func (p *Planner) callOf(t argsynth.Tool, set argsynth.Set) (Call, bool) {
	if slices.Contains(p.sent[t.Name], string(set.Args)) {
		return Call{}, false
	}
	return p.numbered(t, set), true
}

// numbered is the next call of t with set, sent before or not.
func (p *Planner) numbered(t argsynth.Tool, set argsynth.Set) Call {
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
		Pass: min(n, 2), Set: set}
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
	switch c.Set.Reason {
	case argsynth.ReasonRetry, ReasonRepeat, ReasonNamed:
		return
	}
	if strings.TrimSpace(failure) == "" {
		return
	}
	if _, user := p.sel.ToolArgs[c.Name]; user {
		return
	}
	fixed, corrected := argsynth.Correct(t, c.Set, failure)
	if pre, ok := p.namedIn(c.Name, failure); ok {
		// The error names a tool to call first: that tool's first set (or
		// its required one), then this call again, corrected if it can be.
		p.namedBy[c.Name] = true
		p.named[pre.Name]++
		set, ok := p.first[pre.Name]
		if !ok {
			set, ok = argsynth.PlanSet(pre, argsynth.ReasonRequired, p.pool)
		}
		if ok {
			set.Reason = ReasonNamed
			again := c.Set
			if corrected {
				again = fixed
			}
			again.Reason = argsynth.ReasonRetry
			p.queue = append(p.queue, p.numbered(pre, set), p.numbered(t, again))
			return
		}
	}
	if corrected {
		if rc, ok := p.callOf(t, fixed); ok {
			p.queue = append(p.queue, rc)
		}
	}
}

// ReasonNamed marks the call of a tool a failed call's error named ("use
// git_set_working_dir first"); the failed call is made again after it.
const ReasonNamed argsynth.Reason = "named"

// maxNamed bounds the calls one tool gets because errors named it.
const maxNamed = 2

// namedIn is the tool a failure of the tool failed names, if it names one
// that is not failed itself, does not delete or end anything, and has not
// been called for errors maxNamed times; each failing tool brings one
// such call. A name counts when it is a tool's whole name, at least four
// characters of more than one word (take_snapshot, browserNavigate), not
// a plain word a message may use for itself; the longest name met wins.
func (p *Planner) namedIn(failed, failure string) (argsynth.Tool, bool) {
	if p.namedBy[failed] {
		return argsynth.Tool{}, false
	}
	if len(failure) > maxFailureScan {
		failure = failure[:maxFailureScan]
	}
	var best argsynth.Tool
	for _, t := range p.tools {
		if t.Name == failed || len(t.Name) < 4 || len(t.Name) <= len(best.Name) || !multiWord(t.Name) || p.named[t.Name] >= maxNamed {
			continue
		}
		if r := argsynth.Classify(t); r == argsynth.Deleter || r == argsynth.Ender {
			continue
		}
		if containsName(failure, t.Name) {
			best = t
		}
	}
	return best, best.Name != ""
}

// maxFailureScan bounds the part of a failure message searched for names.
const maxFailureScan = 4096

// multiWord: a name of more than one word (a separator, or a capital
// after a small letter).
func multiWord(name string) bool {
	for i, r := range name {
		if r == '_' || r == '-' || r == '.' || r == '/' || i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(name[i-1])) {
			return true
		}
	}
	return false
}

// containsName: name occurs in s as a whole name, not inside a longer one.
func containsName(s, name string) bool {
	part := func(b byte) bool {
		return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		if (i == 0 || !part(s[i-1])) && (end == len(s) || !part(s[end])) {
			return true
		}
		off = i + 1
	}
}
