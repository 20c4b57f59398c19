// Package schedule plans the calls an audit makes to exercise a server
// and shares the time budget among them, so that what is called does not
// depend on order: every tool, prompt, resource and template is called
// once before anything is called again, each first call gets a share of
// the budget (a slow tool cannot push the others out), and what could not
// be called is skipped with a reason the coverage reports.
package schedule

import (
	"encoding/json"

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
	// Set is a tool call's argument set (its reason, references and
	// probes; internal/argsynth).
	Set argsynth.Set
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

// Plan is every call of l as sel asks, in order, planned with nothing
// learned from results (the Planner learns as calls are made).
func Plan(l Lists, sel Selection) []Call {
	p := NewPlanner(l, sel, nil)
	var out []Call
	for {
		c, ok := p.Next()
		if !ok {
			return out
		}
		out = append(out, c)
	}
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
