// Package schedule plans the calls an audit makes to exercise a server
// and shares the time budget among them, so that what is called does not
// depend on order: every tool, prompt, resource and template is called
// once before anything is called again, each first call gets a share of
// the budget (a slow tool cannot push the others out), and what could not
// be called is skipped with a reason the coverage reports.
package schedule

import (
	"encoding/json"
	"slices"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds of a plan.
const (
	maxPrompts   = 50
	maxResources = 50
	maxName      = 256
)

// AgainSuffix marks the phase of an item's second call ("call:NAME#2").
const AgainSuffix = "#2"

// Call is one planned request.
type Call struct {
	Kind   string // tool, prompt, resource, template
	Name   string
	Phase  string
	Method string
	Params any
	Args   json.RawMessage
	Valid  bool
	// Pass is 1 for an item's first call, 2 and on for later ones: first
	// calls share the budget (Budget.Next).
	Pass int
}

// Lists are what the server listed, raw.
type Lists struct {
	Tools, Prompts, Resources, Templates []json.RawMessage
	// Completions: the server declared the completions capability, so
	// prompt arguments and template variables get completion/complete.
	Completions bool
}

// Selection is what the user asked to exercise: Calls "none" makes no
// call; Tools limits calls to these tools (and leaves prompts and
// resources out); ToolArgs replaces synthesized arguments per tool.
type Selection struct {
	None     bool
	Tools    []string
	ToolArgs map[string]json.RawMessage
}

// Plan lists the calls: every tool (or the selected ones) in the order
// the server listed them, then prompts, resources and resource templates,
// then every tool again in a phase of its own (call:NAME#2), so a server
// that behaves on the first call and not on a later one is seen.
func Plan(l Lists, sel Selection) []Call {
	if sel.None {
		return nil
	}
	tools := planTools(l.Tools, sel)
	out := slices.Clone(tools)
	if len(sel.Tools) == 0 { // an explicit tool list means only those
		out = append(out, planPrompts(l.Prompts)...)
		out = append(out, planResources(l.Resources)...)
		out = append(out, planTemplates(l.Templates)...)
		out = append(out, planApps(l.Tools, out)...)
		if l.Completions {
			out = append(out, planCompletions(l.Prompts, l.Templates)...)
		}
	}
	for _, pc := range tools {
		pc.Phase += AgainSuffix
		pc.Pass = 2
		out = append(out, pc)
	}
	return out
}

func planTools(raws []json.RawMessage, sel Selection) []Call {
	var out []Call
	for _, raw := range raws {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" {
			continue
		}
		if len(sel.Tools) > 0 && !slices.Contains(sel.Tools, t.Name) {
			continue
		}
		args, valid, _ := argsynth.Synthesize(t.InputSchema)
		if over, ok := sel.ToolArgs[t.Name]; ok {
			args = over
			valid = argsynth.Validate(t.InputSchema, over) == nil
		}
		out = append(out, Call{Kind: "tool", Name: t.Name, Phase: m.PhaseCallPrefix + textsafe.Text(t.Name, maxName),
			Method: "tools/call", Params: map[string]any{"name": t.Name, "arguments": json.RawMessage(args)}, Args: args, Valid: valid, Pass: 1})
	}
	return out
}

func planPrompts(raws []json.RawMessage) []Call {
	var out []Call
	for i, raw := range raws {
		if i == maxPrompts {
			break
		}
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" {
			continue
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = argsynth.ForName(a.Name)
		}
		b, _ := json.Marshal(args)
		out = append(out, Call{Kind: "prompt", Name: p.Name, Phase: m.PhasePromptPrefix + textsafe.Text(p.Name, maxName),
			Method: "prompts/get", Params: map[string]any{"name": p.Name, "arguments": args}, Args: b, Valid: true, Pass: 1})
	}
	return out
}

func planResources(raws []json.RawMessage) []Call {
	var out []Call
	for i, raw := range raws {
		if i == maxResources {
			break
		}
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &r) != nil || r.URI == "" {
			continue
		}
		out = append(out, readCall("resource", r.URI))
	}
	return out
}

// planTemplates reads each resource template once, at a URI filled in
// with the values a client's user would give.
func planTemplates(raws []json.RawMessage) []Call {
	var out []Call
	for i, raw := range raws {
		if i == maxResources {
			break
		}
		var r struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &r) != nil || r.URITemplate == "" {
			continue
		}
		out = append(out, readCall("template", argsynth.ExpandURI(r.URITemplate)))
	}
	return out
}

func readCall(kind, uri string) Call {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return Call{Kind: kind, Name: uri, Phase: m.PhaseReadPrefix + textsafe.Text(uri, 512),
		Method: "resources/read", Params: map[string]any{"uri": uri}, Args: b, Valid: true, Pass: 1}
}
