package argsynth

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		tool Tool
		want Role
	}{
		{Tool{Name: "create_entities"}, Creator},
		{Tool{Name: "browser_navigate"}, Creator},
		{Tool{Name: "git_clone"}, Creator},
		{Tool{Name: "read_graph"}, Reader},
		{Tool{Name: "API-retrieve-a-page"}, Other},
		{Tool{Name: "searchNotes"}, Reader},
		{Tool{Name: "update_issue"}, Updater},
		{Tool{Name: "kubectl_patch"}, Updater},
		{Tool{Name: "delete_entities"}, Deleter},
		{Tool{Name: "remove_from_cart"}, Deleter},
		{Tool{Name: "browser_close"}, Ender},
		{Tool{Name: "kill_process"}, Ender},
		{Tool{Name: "git_clear_working_dir"}, Ender},
		{Tool{Name: "stop_search"}, Ender},
		{Tool{Name: "browser_navigate_back", Annotations: json.RawMessage(`{"destructiveHint":true,"readOnlyHint":false}`)}, Ender},
		{Tool{Name: "undo_last_edit"}, Ender},
		{Tool{Name: "get_feedback"}, Reader},
		{Tool{Name: "backup_database"}, Other},
		// Setup: a setting verb and the context it sets, whatever the
		// annotations say; settings of other things stay updaters.
		{Tool{Name: "git_set_working_dir", Annotations: json.RawMessage(`{"readOnlyHint":true}`)}, Setup},
		{Tool{Name: "useDatabase"}, Setup},
		{Tool{Name: "switch_project"}, Setup},
		{Tool{Name: "set_config_value"}, Updater},
		{Tool{Name: "select_page"}, Updater},
		{Tool{Name: "send_email"}, Creator},
		{Tool{Name: "create_or_update_file"}, Creator},
		// Annotations: read-only wins over a verb; destructive decides for a
		// name without one.
		{Tool{Name: "write_notes", Annotations: json.RawMessage(`{"readOnlyHint":true}`)}, Reader},
		{Tool{Name: "vault", Annotations: json.RawMessage(`{"destructiveHint":true}`)}, Deleter},
		// The description's first verb, when the name has none.
		{Tool{Name: "glossary_entry", Description: "Deletes an entry from a glossary."}, Deleter},
		{Tool{Name: "sequentialthinking", Description: "A detailed tool for dynamic problem-solving."}, Other},
	} {
		if got := Classify(tc.tool); got != tc.want {
			t.Errorf("Classify(%s) = %s, want %s", tc.tool.Name, got, tc.want)
		}
	}
}

// TestOrder: setup, creators, readers, others, updaters, deleters, enders; the server's
// order within each.
func TestOrder(t *testing.T) {
	var tools []Tool
	for _, n := range []string{"delete_entities", "read_graph", "create_relations", "echo", "update_issue", "create_entities", "open_nodes", "close_page", "kill_process", "set_working_dir", "stop_trace"} {
		tools = append(tools, Tool{Name: n})
	}
	var got []string
	for _, tool := range Order(tools) {
		got = append(got, tool.Name)
	}
	want := []string{"set_working_dir", "create_relations", "create_entities", "read_graph", "open_nodes", "echo", "update_issue", "delete_entities", "stop_trace", "close_page", "kill_process"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got\n%s", diff)
	}
}
