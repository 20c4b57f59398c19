package remote

import (
	"encoding/json"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// FuzzAnswers: whatever a remote server puts in a list or a result, the
// ui:// pages found are bounded and the call record stays bounded.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte(`{"name":"t","_meta":{"ui":{"resourceUri":"ui://a/b.html"},"ui/resourceUri":"ui://c"}}`))
	f.Add([]byte(`{"uri":"ui://x","contents":[{"blob":"AA=="},{"text":"<b>hi</b>"}],"content":[{"type":"text"}],"isError":true}`))
	f.Add([]byte(`{"_meta":{"ui":{"resourceUri":7}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := []json.RawMessage{data, data}
		pages := uiPages(raw, raw)
		if len(pages) > MaxUIReads {
			t.Fatalf("%d pages", len(pages))
		}
		for _, p := range pages {
			if !strings.HasPrefix(p, "ui://") || len(p) > 2048 {
				t.Fatalf("page %q", p)
			}
		}
		call := m.Call{Content: []string{}}
		content(&call, data)
		if len(call.Content) > 10 || len(call.Detail) > 200 {
			t.Fatalf("call %+v", call)
		}
	})
}
