package schedule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
)

// TestPlannerLearns: creators are called before readers, a reader's
// argument takes the name the create call returned (recorded as a
// reference, not the value), a failure naming an argument problem gets
// one corrected retry right after, the prompt is read once after the
// first pass, and the other kinds of sets follow in later passes.
func TestPlannerLearns(t *testing.T) {
	l := Lists{
		Tools: raws(`{"name":"open_nodes","inputSchema":{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"description":"Entity names"}},"required":["names"]}}`,
			`{"name":"create_entities","inputSchema":{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},"required":["entities"]}}`,
			`{"name":"set_mode","inputSchema":{"type":"object","properties":{"mode":{"type":"string"},"verbose":{"type":"boolean"}},"required":["mode"]}}`),
		Prompts: raws(`{"name":"summary"}`),
	}
	p := NewPlanner(l, Selection{}, func(string) bool { return false })
	if p.Firsts() != 4 {
		t.Errorf("firsts %d, want 4", p.Firsts())
	}
	var phases []string
	var openArgs json.RawMessage
	for {
		c, ok := p.Next()
		if !ok {
			break
		}
		phases = append(phases, c.Phase)
		switch {
		case c.Name == "create_entities" && c.Set.Reason == argsynth.ReasonRequired:
			p.Done(c, json.RawMessage(`{"content":[{"type":"text","text":"[{\"name\":\"Ada Byron\",\"id\":\"e-93f1\"}]"}]}`), "")
		case c.Name == "open_nodes" && openArgs == nil:
			openArgs = c.Args
			if !strings.Contains(string(c.Params.(map[string]any)["arguments"].(json.RawMessage)), "Ada Byron") {
				t.Errorf("open_nodes did not take the created name: %v", c.Params)
			}
			p.Done(c, nil, "")
		case c.Name == "set_mode" && c.Set.Reason == argsynth.ReasonRequired:
			p.Done(c, nil, `MCP error -32602: Invalid arguments for tool set_mode: [{"code":"invalid_enum_value","options":["fast","safe"],"path":["mode"],"message":"Invalid enum value. Expected 'fast' | 'safe'"}]`)
		default:
			p.Done(c, json.RawMessage(`{"content":[]}`), "")
		}
	}
	if !strings.Contains(string(openArgs), `"$ref_call":"call:create_entities"`) {
		t.Errorf("recorded %s: want the reference", openArgs)
	}
	idx := func(s string) int {
		for i, ph := range phases {
			if ph == s {
				return i
			}
		}
		return -1
	}
	if !(idx("call:create_entities") < idx("call:open_nodes") && idx("call:set_mode") < idx("call:set_mode#2") &&
		idx("call:set_mode#2") == idx("call:set_mode")+1 && idx("prompt:summary") > idx("call:open_nodes")) {
		t.Errorf("order %q", phases)
	}
}

// TestPlannerUserArgs: the user's arguments for a tool are sent as they
// are, and never corrected (a second call repeats them).
func TestPlannerUserArgs(t *testing.T) {
	l := Lists{Tools: raws(`{"name":"q","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}`)}
	p := NewPlanner(l, Selection{ToolArgs: map[string]json.RawMessage{"q": json.RawMessage(`{"sql":"select 1"}`)}}, nil)
	var n int
	for {
		c, ok := p.Next()
		if !ok {
			break
		}
		n++
		if string(c.Args) != `{"sql":"select 1"}` {
			t.Errorf("args %s", c.Args)
		}
		p.Done(c, nil, "Invalid input: sql must be a string")
	}
	if n != 2 {
		t.Errorf("%d calls, want the call and its repeat", n)
	}
}

// TestPlannerRepeats: a tool with one set only is called again with the
// same arguments, last (a tool that turns hostile on its second call).
func TestPlannerRepeats(t *testing.T) {
	got := Plan(Lists{Tools: raws(`{"name":"sync","inputSchema":{"type":"object"}}`)}, Selection{})
	if len(got) != 2 || got[1].Phase != "call:sync#2" || string(got[0].Args) != string(got[1].Args) || got[1].Set.Reason != ReasonRepeat {
		t.Errorf("calls %+v", got)
	}
}
