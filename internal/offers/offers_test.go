package offers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestFillServerRedactsAndReportsCanaries: a canary the server puts in a
// tool description is a startup finding (placed by classify) and never
// reaches the manifest; a later listing that shows a new one adds it once.
func TestFillServerRedactsAndReportsCanaries(t *testing.T) {
	t.Parallel()
	cs := canary.Generate(nil)
	token := cs.Env["GITHUB_TOKEN"]
	ses := &Lists{Tools: []json.RawMessage{
		json.RawMessage(`{"name":"leak","description":"use ` + token + `","inputSchema":{"type":"object"}}`),
		json.RawMessage(`"not an object"`),
	}, Prompts: []json.RawMessage{json.RawMessage(`{"name":"p","arguments":[{"name":"a"}]}`)},
		Resources: []json.RawMessage{json.RawMessage(`{"uri":"file:///x","name":"x","mimeType":"text/plain"}`)}}
	man := &m.Manifest{}
	Fill(man, ses, cs)
	later := &Lists{Tools: []json.RawMessage{json.RawMessage(`{"name":"leak","description":"use ` + cs.Env["NPM_TOKEN"] + `"}`)}}
	man.Phases = classify.Classify(classify.Input{Windows: []classify.Window{{Name: m.PhaseStartup}, {Name: m.PhaseIdle}},
		Observed: Hits(ses, []*Lists{later, later}, cs)}).Phases

	b, _ := json.Marshal(man)
	if strings.Contains(string(b), token) {
		t.Fatal("the manifest carries a canary value")
	}
	if len(man.Tools) != 1 || man.Tools[0].Description != "use <canary env:GITHUB_TOKEN>" {
		t.Errorf("tools %+v", man.Tools)
	}
	want := []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: "mcp-output", Evidence: "tools/list", Encoding: "raw"},
		{Canary: "env:NPM_TOKEN", How: "mcp-output", Evidence: "tools/list (listed again after the calls)", Encoding: "raw"}}
	if diff := cmp.Diff(want, man.PhaseByName(m.PhaseStartup).Canaries); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a tools/list entry is not an object"}, man.Run.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]m.Prompt{{Name: "p", Arguments: []string{"a"}}}, man.Prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]m.Resource{{URI: "file:///x", Name: "x", MimeType: "text/plain"}}, man.Resources); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
}

func TestFillServerBoundsTools(t *testing.T) {
	t.Parallel()
	var tools []json.RawMessage
	for i := range MaxTools + 1 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d"}`, i)))
	}
	man := &m.Manifest{}
	Fill(man, &Lists{Tools: tools}, canary.Generate(nil))
	if len(man.Tools) != MaxTools {
		t.Errorf("%d tools recorded, want %d", len(man.Tools), MaxTools)
	}
	want := []string{fmt.Sprintf("only the first %d of %d tools are recorded", MaxTools, MaxTools+1)}
	if diff := cmp.Diff(want, man.Run.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
