package policy

import (
	"encoding/json"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestXHeaderSecrets: an argument that holds a credential mirrored into an
// HTTP header is high; a region mirrored (the revision's own example) is
// nothing; a declaration a conforming client refuses is medium.
func TestXHeaderSecrets(t *testing.T) {
	tool := func(name, schema string) m.Tool { return m.Tool{Name: name, InputSchema: json.RawMessage(schema)} }
	man := &m.Manifest{Tools: []m.Tool{
		tool("lookup", `{"type":"object","properties":{"customer":{"type":"string"},"api_key":{"type":"string","x-mcp-header":"Api-Key"}}}`),
		tool("query", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`),
		tool("bad", `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"string","x-mcp-header":"X"}}}}`),
	}}
	got := map[string]Severity{}
	for _, f := range xheaderFindings(man) {
		got[f.Subject] = f.Severity
	}
	want := map[string]Severity{"lookup x-mcp-header api_key": High, "bad x-mcp-header": Medium}
	if len(got) != len(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all %v)", k, got[k], v, got)
		}
	}
}
