package coverage

import (
	"encoding/json"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestClassOfFailures: a result that failed the server's own schema is
// the backend's answer, whatever the error code; a validation message
// about the tool's own parameters stays bad arguments.
func TestClassOfFailures(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"data":{"type":"array"}}}`)
	for detail, want := range map[string]string{
		`MCP error -32602: Invalid tools/call result: [ { "code": "invalid_union", "errors": [ [ { "expected": "string"`: ErrorClassBackendAnswer,
		`Tool 'firecrawl_map' structured output validation failed: id: Invalid input: expected string, received number.`: ErrorClassBackendAnswer,
		`Invalid input: [{"code":"invalid_type","expected":"string","received":"undefined","path":["node_id"]}]`:         ErrorClassBackendAnswer,
		`MCP error -32602: Invalid arguments for tool chart: [{"path":["data"],"message":"Required"}]`:                   m.ErrorClassInvalidArguments,
		`spawnSync kubectl ENOENT`: m.ErrorClassMissingProgram,
	} {
		if got := Class(m.Call{Outcome: m.CallError, Detail: detail}, schema); got != want {
			t.Errorf("Class(%q) = %s, want %s", detail, got, want)
		}
	}
}
