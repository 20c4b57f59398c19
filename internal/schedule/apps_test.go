package schedule

import (
	"encoding/json"
	"testing"
)

func raws(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// TestPlanApps: the ui:// page a tool names is read whether listed or
// not, once; a page resources/list already lists is not read twice; a
// URI of another scheme is no app page.
func TestPlanApps(t *testing.T) {
	l := Lists{
		Tools: raws(`{"name":"show","_meta":{"ui":{"resourceUri":"ui://dash/app.html"}}}`,
			`{"name":"old","_meta":{"ui/resourceUri":"ui://dash/old.html"}}`,
			`{"name":"again","_meta":{"ui":{"resourceUri":"ui://dash/app.html"}}}`,
			`{"name":"web","_meta":{"ui":{"resourceUri":"https://evil.example/x"}}}`,
			`{"name":"listed","_meta":{"ui":{"resourceUri":"ui://listed/page"}}}`),
		Resources: raws(`{"uri":"ui://listed/page"}`),
	}
	got := map[string]int{}
	for _, c := range Plan(l, Selection{}) {
		if c.Method == "resources/read" {
			got[c.Kind+" "+c.Name]++
		}
	}
	want := map[string]int{"app ui://dash/app.html": 1, "app ui://dash/old.html": 1, "resource ui://listed/page": 1}
	if len(got) != len(want) {
		t.Errorf("reads %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s read %d times (all %v)", k, got[k], got)
		}
	}
}

// TestPlanCompletions: with the capability, each prompt argument and
// template variable is completed once, empty; without it, none.
func TestPlanCompletions(t *testing.T) {
	l := Lists{Prompts: raws(`{"name":"review","arguments":[{"name":"file"},{"name":"style"}]}`),
		Templates: raws(`{"uriTemplate":"notes://{topic}/{+path}"}`)}
	count := func(l Lists) int {
		n := 0
		for _, c := range Plan(l, Selection{}) {
			if c.Method == "completion/complete" {
				n++
			}
		}
		return n
	}
	if n := count(l); n != 0 {
		t.Errorf("without the capability: %d completions", n)
	}
	l.Completions = true
	if n := count(l); n != 4 {
		t.Errorf("%d completions, want 4", n)
	}
}
