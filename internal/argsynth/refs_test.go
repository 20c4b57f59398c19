package argsynth

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// textResult is a tools/call result whose one text item is text.
func textResult(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	return b
}

var memoryTools = map[string]Tool{
	"open_nodes":      {Name: "open_nodes", InputSchema: obj(`"names":{"type":"array","items":{"type":"string"},"description":"An array of entity names to retrieve"}`, "names")},
	"delete_entities": {Name: "delete_entities", InputSchema: obj(`"entityNames":{"type":"array","items":{"type":"string"}}`, "entityNames")},
	"create_relations": {Name: "create_relations", InputSchema: obj(`"relations":{"type":"array","items":{"type":"object","properties":{
		"from":{"type":"string","description":"The name of the entity where the relation starts"},
		"to":{"type":"string","description":"The name of the entity where the relation ends"},
		"relationType":{"type":"string"}},"required":["from","to","relationType"]}}`, "relations")},
}

// TestReferences: names and ids an earlier call returned feed the
// parameters that ask for them, recorded as references.
func TestReferences(t *testing.T) {
	pool := NewPool(nil)
	pool.Add("call:create_entities", "create_entities", textResult(`[{"name":"Ada Byron","entityType":"person","observations":[]}]`))
	for name, want := range map[string]struct{ args, recorded string }{
		"open_nodes":      {`{"names":["Ada Byron"]}`, `{"names":[{"$ref_call":"call:create_entities","field":"content[0].text[0].name"}]}`},
		"delete_entities": {`{"entityNames":["Ada Byron"]}`, `{"entityNames":[{"$ref_call":"call:create_entities","field":"content[0].text[0].name"}]}`},
		"create_relations": {`{"relations":[{"from":"Ada Byron","relationType":"Quarterly report","to":"Ada Byron"}]}`,
			`{"relations":[{"from":{"$ref_call":"call:create_entities","field":"content[0].text[0].name"},"relationType":"Quarterly report","to":{"$ref_call":"call:create_entities","field":"content[0].text[0].name"}}]}`},
	} {
		s, _ := PlanSet(memoryTools[name], ReasonRequired, pool)
		if string(s.Args) != want.args || string(s.Recorded()) != want.recorded || !s.Valid {
			t.Errorf("%s:\n got  %s\n      %s\n want %s\n      %s", name, s.Args, s.Recorded(), want.args, want.recorded)
		}
	}
	// Control: without results, the synthesized values and no references.
	s, _ := PlanSet(memoryTools["open_nodes"], ReasonRequired, NewPool(nil))
	if string(s.Args) != `{"names":["Maria Lindqvist"]}` || len(s.Refs) != 0 {
		t.Errorf("empty pool: %s %v", s.Args, s.Refs)
	}
}

// TestReferencesKeepManifestsIdentical: two runs whose creator returned
// different random ids send different ids and record the same bytes.
func TestReferencesKeepManifestsIdentical(t *testing.T) {
	get := Tool{Name: "get_issue", InputSchema: obj(`"issue_id":{"type":"string"}`, "issue_id")}
	var recorded []string
	for _, id := range []string{"a81f3c", "09bd2e"} {
		pool := NewPool(nil)
		pool.Add("call:create_issue", "create_issue", textResult("Created the issue.\nID: "+id+"\n"))
		s, _ := PlanSet(get, ReasonRequired, pool)
		if !strings.Contains(string(s.Args), id) {
			t.Errorf("sent %s, not the id %s", s.Args, id)
		}
		recorded = append(recorded, string(s.Recorded()))
	}
	want := `{"issue_id":{"$ref_call":"call:create_issue","field":"content[0].text:ID"}}`
	if diff := cmp.Diff([]string{want, want}, recorded); diff != "" {
		t.Errorf("recorded -want +got\n%s", diff)
	}
}

// TestPoolRefusesHostileValues: a result that names a decoy credential, a
// path outside the workspace or a denied value (a canary) never makes a
// later call carry it; an ordinary file in the workspace does.
func TestPoolRefusesHostileValues(t *testing.T) {
	read := Tool{Name: "read_file", InputSchema: obj(`"path":{"type":"string"}`, "path")}
	for name, tc := range map[string]struct{ result, want string }{
		"decoy env":       {`{"files":[{"path":"/home/dev/workspace/.env"},{"path":"/home/dev/workspace/notes/todo.md"}]}`, Workspace + "/notes/todo.md"},
		"ssh key":         {`{"files":[{"path":"~/.ssh/id_rsa"}]}`, File},
		"outside":         {`{"files":[{"path":"/etc/passwd"}]}`, File},
		"parent dir":      {`{"files":[{"path":"notes/../../.aws/credentials"}]}`, File},
		"denied (canary)": {`{"files":[{"path":"notes/sk-proj-Zq81"}]}`, File},
		"control":         {`{"files":[{"path":"notes/todo.md"}]}`, "notes/todo.md"},
	} {
		pool := NewPool(func(v string) bool { return strings.Contains(v, "sk-proj-") })
		pool.Add("call:list_files", "list_files", json.RawMessage(tc.result))
		s, _ := PlanSet(read, ReasonRequired, pool)
		var v map[string]any
		json.Unmarshal(s.Args, &v)
		if v["path"] != tc.want {
			t.Errorf("%s: sent %v, want %s", name, v["path"], tc.want)
		}
	}
}

// TestPoolBounds: a huge result keeps a bounded pool; a tool's own
// results are not fed back to it.
func TestPoolBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range 5000 {
		fmt.Fprintf(&b, `{"id":"%d","name":"n%d"},`, i, i)
	}
	b.WriteString(`{}]}`)
	pool := NewPool(nil)
	for i := range 20 {
		pool.Add(fmt.Sprintf("call:list#%d", i), "list_items", json.RawMessage(b.String()))
	}
	if len(pool.entries) > maxPool {
		t.Errorf("%d entries", len(pool.entries))
	}
	pool.Add("call:x", "x", json.RawMessage(`{"id": "`+strings.Repeat("9", 10000)+`"}`))
	for _, e := range pool.entries {
		if s, ok := e.value.(string); ok && len(s) > maxValue {
			t.Errorf("kept a %d-byte value", len(s))
		}
	}
	self := NewPool(nil)
	self.Add("call:create_entities", "create_entities", json.RawMessage(`{"entities":[{"name":"Ada Byron"}]}`))
	create := Tool{Name: "create_entities", InputSchema: obj(`"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`, "entities")}
	if s, _ := PlanSet(create, ReasonRequired, self); len(s.Refs) != 0 {
		t.Errorf("fed a tool its own result: %s", s.Recorded())
	}
}

// TestScoring: a reference is made only when the names agree.
func TestScoring(t *testing.T) {
	pool := NewPool(nil)
	pool.Add("call:create_page", "create_page", json.RawMessage(`{"id":"p-77","block_id":"b-12"}`))
	for name, tc := range map[string]struct {
		tool Tool
		ref  bool
	}{
		"same compound":    {Tool{Name: "append_block", InputSchema: obj(`"block_id":{"type":"string"}`, "block_id")}, true},
		"camel compound":   {Tool{Name: "append_block", InputSchema: obj(`"blockId":{"type":"string"}`, "blockId")}, true},
		"id of same noun":  {Tool{Name: "get_page", InputSchema: obj(`"id":{"type":"string"}`, "id")}, true},
		"id of other noun": {Tool{Name: "get_user", InputSchema: obj(`"id":{"type":"string"}`, "id")}, false},
		"other compound":   {Tool{Name: "get_user", InputSchema: obj(`"user_id":{"type":"string"}`, "user_id")}, false},
		"not an id":        {Tool{Name: "get_page", InputSchema: obj(`"title":{"type":"string"}`, "title")}, false},
	} {
		s, _ := PlanSet(tc.tool, ReasonRequired, pool)
		if (len(s.Refs) > 0) != tc.ref {
			t.Errorf("%s: refs %v", name, s.Refs)
		}
	}
}

// TestReferenceNoFileForDirectory: a parameter that takes the repository's
// directory does not take a file path an earlier call returned under the
// same name; one that takes a file does.
func TestReferenceNoFileForDirectory(t *testing.T) {
	pool := NewPool(nil)
	pool.Add("call:git_blame", "git_blame", textResult(`{"path":"/home/dev/workspace/README.md","lines":3}`))
	dir := Tool{Name: "git_log", InputSchema: obj(`"path":{"type":"string","description":"Path to the Git repository directory."}`, "path")}
	s, _ := PlanSet(dir, ReasonRequired, pool)
	if len(s.Refs) != 0 || string(s.Args) != `{"path":"/home/dev/workspace"}` {
		t.Errorf("directory parameter: %s %v", s.Args, s.Refs)
	}
	file := Tool{Name: "git_show", InputSchema: obj(`"path":{"type":"string","description":"The file to show."}`, "path")}
	if s, _ := PlanSet(file, ReasonRequired, pool); len(s.Refs) != 1 {
		t.Errorf("file parameter: %s %v", s.Args, s.Refs)
	}
	// The other way round: a directory an earlier call returned (the one
	// it listed, desktop-commander's "filePath") is not a file to write.
	pool = NewPool(nil)
	pool.Add("call:list_directory", "list_directory", json.RawMessage(`{"content":[],"structuredContent":{"filePath":"/home/dev/workspace","entries":3}}`))
	write := Tool{Name: "write_file", InputSchema: obj(`"path":{"type":"string","description":"Path of the file to write."},"content":{"type":"string"}`, "path", "content")}
	if s, _ := PlanSet(write, ReasonRequired, pool); len(s.Refs) != 0 {
		t.Errorf("a directory for a file parameter: %s %v", s.Args, s.Refs)
	}
}

// TestReferencePrefersWhatACreatorMade: a process id in a creator's prose
// ("Process started with PID 4182") feeds a later pid parameter ahead of
// the server's own pid a later config read showed.
func TestReferencePrefersWhatACreatorMade(t *testing.T) {
	pool := NewPool(nil)
	pool.Add("call:start_process", "start_process", textResult("Process started with PID 4182 (shell: /bin/sh)\nInitial output: ok"))
	pool.Add("call:get_config", "get_config", json.RawMessage(`{"content":[],"structuredContent":{"systemInfo":{"process":{"pid":17}}}}`))
	read := Tool{Name: "read_process_output", InputSchema: obj(`"pid":{"type":"number","description":"Process ID"}`, "pid")}
	s, _ := PlanSet(read, ReasonRequired, pool)
	if string(s.Args) != `{"pid":4182}` || len(s.Refs) != 1 || s.Refs[0].Call != "call:start_process" {
		t.Errorf("pid: %s %+v", s.Args, s.Refs)
	}
}
