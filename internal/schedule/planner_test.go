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

// drain runs a planner to its end, answering each call with answer (a
// failure message, "" for success), and returns the phases in order.
func drain(p *Planner, answer func(Call) string) []string {
	var phases []string
	for len(phases) < 1000 {
		c, ok := p.Next()
		if !ok {
			break
		}
		phases = append(phases, c.Phase)
		if f := answer(c); f != "" {
			p.Done(c, nil, f)
		} else {
			p.Done(c, json.RawMessage(`{"content":[]}`), "")
		}
	}
	return phases
}

// TestPlannerEndersLast: a tool that ends what the others use (a page's
// close, a process's kill) gets its calls after every pass of the other
// tools, so no later set meets a closed page; a tool that sets the
// working context is called first.
func TestPlannerEndersLast(t *testing.T) {
	l := Lists{Tools: raws(`{"name":"close_page","inputSchema":{"type":"object","properties":{"pageId":{"type":"number"}},"required":["pageId"]}}`,
		`{"name":"click","inputSchema":{"type":"object","properties":{"uid":{"type":"string"},"dblClick":{"type":"boolean"}},"required":["uid"]}}`,
		`{"name":"new_page","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"background":{"type":"boolean"}},"required":["url"]}}`,
		`{"name":"set_working_dir","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`)}
	phases := drain(NewPlanner(l, Selection{}, nil), func(Call) string { return "" })
	last := -1
	for i, ph := range phases {
		if !strings.HasPrefix(ph, "call:close_page") {
			last = i
		}
	}
	if phases[0] != "call:set_working_dir" {
		t.Errorf("first %q, want the setup tool", phases[0])
	}
	for i, ph := range phases {
		if strings.HasPrefix(ph, "call:close_page") && i < last {
			t.Errorf("close_page at %d before another tool's call at %d: %q", i, last, phases)
			break
		}
	}
	if !strings.Contains(strings.Join(phases, " "), "call:close_page") {
		t.Errorf("close_page never called: %q", phases)
	}
}

// TestPlannerCallsWhatTheErrorNames: a call whose error names another of
// the server's tools ("use take_snapshot first") brings that tool's call
// and then the failed call again, once per failing tool and at most twice
// per named tool; a name inside a longer word, a deleting tool, or the
// failing tool itself brings nothing.
func TestPlannerCallsWhatTheErrorNames(t *testing.T) {
	l := Lists{Tools: raws(`{"name":"take_snapshot","inputSchema":{"type":"object"}}`,
		`{"name":"click","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"]}}`,
		`{"name":"hover","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"]}}`,
		`{"name":"fill","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"]}}`,
		`{"name":"delete_page","inputSchema":{"type":"object"}}`,
		`{"name":"drag","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"]}}`)}
	snapped := 0
	var named []string
	phases := drain(NewPlanner(l, Selection{}, nil), func(c Call) string {
		if c.Set.Reason == ReasonNamed {
			named = append(named, c.Phase)
		}
		switch c.Name {
		case "take_snapshot":
			snapped++
		case "click", "hover", "fill":
			if c.Set.Reason == argsynth.ReasonRequired {
				return "Error: No snapshot found for page 1. Use take_snapshot to capture one."
			}
		case "drag":
			return "Error: call delete_page or mytake_snapshots, or drag again"
		}
		return ""
	})
	joined := " " + strings.Join(phases, " ") + " "
	if !strings.Contains(joined, " call:click call:take_snapshot#2 call:click#2 ") {
		t.Errorf("click's error did not bring take_snapshot and click again: %q", phases)
	}
	if !strings.Contains(joined, " call:hover call:take_snapshot#3 call:hover#2 ") {
		t.Errorf("hover's error did not bring take_snapshot and hover again: %q", phases)
	}
	if strings.Contains(joined, " call:fill call:take_snapshot") {
		t.Errorf("take_snapshot called a third time for an error: %q", phases)
	}
	if strings.Contains(joined, "call:drag call:take_snapshot") || len(named) != 2 {
		t.Errorf("named calls %q (want take_snapshot twice, never delete_page or a name inside a word): %q", named, phases)
	}
	if snapped < 3 {
		t.Errorf("take_snapshot made %d calls", snapped)
	}
}
