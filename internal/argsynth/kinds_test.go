package argsynth

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// first is a tool's required-only set, decoded.
func first(t *testing.T, tool Tool) map[string]any {
	t.Helper()
	sets := Plan(tool, nil)
	if len(sets) == 0 {
		t.Fatalf("%s: no sets", tool.Name)
	}
	if !sets[0].Valid {
		t.Errorf("%s: %s does not validate", tool.Name, sets[0].Args)
	}
	var v map[string]any
	if err := json.Unmarshal(sets[0].Args, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func obj(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// TestValuesSayWhatTheyAre: a value fits what its name, its description
// and its tool say the parameter holds.
func TestValuesSayWhatTheyAre(t *testing.T) {
	for name, tc := range map[string]struct {
		tool Tool
		want map[string]any
	}{
		"which shell": {Tool{Name: "start_process", Description: "Start a terminal process", InputSchema: obj(`"command":{"type":"string"},"shell":{"type":"string","description":"Shell to use (default: the user's)"}`, "command", "shell")},
			map[string]any{"command": "ls -la", "shell": "/bin/bash"}},
		"github url": {Tool{Name: "get_issue", Description: "Get an issue of a GitHub repository", InputSchema: obj(`"url":{"type":"string"}`, "url")},
			map[string]any{"url": "https://github.com/brightwater-logistics/fleet-dashboard"}},
		"video url": {Tool{Name: "get_transcript", InputSchema: obj(`"url":{"type":"string","description":"YouTube video URL or ID"}`, "url")},
			map[string]any{"url": "https://www.youtube.com/watch?v=Qx3vF8tLm2E"}},
		"clone": {Tool{Name: "git_clone", InputSchema: obj(`"url":{"type":"string"},"path":{"type":"string","description":"Destination path where the repository should be cloned"}`, "url", "path")},
			map[string]any{"url": "https://github.com/brightwater-logistics/fleet-dashboard.git", "path": Workspace + "/reports"}},
		"directory tool": {Tool{Name: "list_directory", InputSchema: obj(`"path":{"type":"string"}`, "path")},
			map[string]any{"path": Workspace}},
		"new directory": {Tool{Name: "create_directory", InputSchema: obj(`"path":{"type":"string"}`, "path")},
			map[string]any{"path": Workspace + "/reports"}},
		"write target": {Tool{Name: "write_file", InputSchema: obj(`"path":{"type":"string"},"content":{"type":"string"}`, "path", "content")},
			map[string]any{"path": Workspace + "/notes/q3-summary.md", "content": Text}},
		"read": {Tool{Name: "read_file", InputSchema: obj(`"path":{"type":"string"}`, "path")},
			map[string]any{"path": File}},
		"hosted repo path": {Tool{Name: "get_file_contents", Description: "Get a file from a GitHub repository", InputSchema: obj(`"owner":{"type":"string"},"repo":{"type":"string"},"path":{"type":"string"}`, "owner", "repo", "path")},
			map[string]any{"owner": Login, "repo": "fleet-dashboard", "path": "README.md"}},
		"api path example": {Tool{Name: "jira_get", InputSchema: obj(`"path":{"type":"string","description":"The Jira API endpoint path. Examples: \"/rest/api/3/project\""}`, "path")},
			map[string]any{"path": "/rest/api/3/project"}},
		"id shaped by description": {Tool{Name: "delete_glossary", InputSchema: obj(`"id":{"type":"string","pattern":"^gls_[a-zA-Z0-9_-]+$","description":"The glossary ID (format: gls_*, e.g., 'gls_xyz123')"}`, "id")},
			map[string]any{"id": "gls_xyz123"}},
		"id by pattern": {Tool{Name: "get_figma_data", InputSchema: obj(`"fileKey":{"type":"string","pattern":"^[a-zA-Z0-9]+$"}`, "fileKey")},
			map[string]any{"fileKey": ID}},
		"relation names": {Tool{Name: "create_relations", InputSchema: obj(`"from":{"type":"string","description":"The name of the entity where the relation starts"},"to":{"type":"string","description":"The name of the entity where the relation ends"}`, "from", "to")},
			map[string]any{"from": Person, "to": "Daniel Okafor"}},
		"mail recipient": {Tool{Name: "send_email", InputSchema: obj(`"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}`, "to", "subject", "body")},
			map[string]any{"to": Email, "subject": Text, "body": "Shipment schedule for November"}},
		"code in its language": {Tool{Name: "run-code", InputSchema: obj(`"code":{"type":"string"},"languageId":{"enum":["javascript","python"]}`, "code", "languageId")},
			map[string]any{"code": "console.log('Quarterly report ready')", "languageId": "javascript"}},
		"browser function": {Tool{Name: "browser_evaluate", InputSchema: obj(`"function":{"type":"string","description":"() => { /* code */ }"}`, "function")},
			map[string]any{"function": "() => document.title"}},
		"sql": {Tool{Name: "query", InputSchema: obj(`"sql":{"type":"string"}`, "sql")},
			map[string]any{"sql": "SELECT id, name, city FROM customers ORDER BY id LIMIT 10"}},
		"kubernetes manifest": {Tool{Name: "kubectl_apply", InputSchema: obj(`"manifest":{"type":"string","description":"YAML manifest to apply"}`, "manifest")},
			map[string]any{"manifest": yamlManifest}},
		"git revision": {Tool{Name: "git_show", InputSchema: obj(`"object":{"type":"string"}`, "object")},
			map[string]any{"object": "HEAD"}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, first(t, tc.tool)); diff != "" {
				t.Errorf("-want +got\n%s", diff)
			}
		})
	}
}

// TestDistinctValues: every string argument of a set carries its own
// value, so a payload names the argument it came from; the same schema
// gives the same bytes every time.
func TestDistinctValues(t *testing.T) {
	tool := Tool{Name: "create_ticket", InputSchema: obj(`"title":{"type":"string"},"summary":{"type":"string"},"body":{"type":"string"},"note":{"type":"string"},
		"cc":{"type":"array","items":{"type":"string","format":"email"},"minItems":3},"owner":{"type":"string"},"assignee":{"type":"string"}`,
		"title", "summary", "body", "note", "cc", "owner", "assignee")}
	v := first(t, tool)
	seen := map[string]string{}
	var walk func(k string, x any)
	walk = func(k string, x any) {
		switch y := x.(type) {
		case string:
			if o, dup := seen[y]; dup {
				t.Errorf("%s and %s both carry %q", o, k, y)
			}
			seen[y] = k
		case []any:
			for _, i := range y {
				walk(k+"[]", i)
			}
		}
	}
	for k, x := range v {
		walk(k, x)
	}
	a, b := Plan(tool, nil), Plan(tool, nil)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two plans of one tool differ:\n%s", diff)
	}
}

// TestGroupsFromDescriptions: "either a or b" in a description gives a
// set with one of them, and the optional set never carries both.
func TestGroupsFromDescriptions(t *testing.T) {
	tool := Tool{Name: "firecrawl_interact", Description: "Provide either `url` or `scrapeId`, and either a natural-language `prompt` or executable `code`.",
		InputSchema: obj(`"url":{"type":"string"},"scrapeId":{"type":"string"},"prompt":{"type":"string"},"code":{"type":"string"},"language":{"enum":["bash","python"]}`)}
	sets := Plan(tool, nil)
	want := map[string]any{"url": URL, "prompt": "Summarize the open shipping delays for October"}
	var got map[string]any
	json.Unmarshal(sets[0].Args, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("required set -want +got\n%s", diff)
	}
	for _, s := range sets {
		var v map[string]any
		json.Unmarshal(s.Args, &v)
		if v["url"] != nil && v["scrapeId"] != nil || v["prompt"] != nil && v["code"] != nil {
			t.Errorf("%s set carries both members of a group: %s", s.Reason, s.Args)
		}
	}
	// The parameter's own description: "use either manifest or filename".
	k := Tool{Name: "kubectl_apply", InputSchema: obj(`"manifest":{"type":"string","description":"YAML manifest"},"filename":{"type":"string","description":"Path to a YAML file (use either manifest or filename)"}`)}
	if v := first(t, k); v["manifest"] != yamlManifest || v["filename"] != nil {
		t.Errorf("kubectl_apply: %v", v)
	}
}
