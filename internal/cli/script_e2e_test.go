package cli_test

import (
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestScriptsEngine runs testdata/script-e2e/*.txtar: the CLI auditing
// fixture servers through the real sandbox.
func TestScriptsEngine(t *testing.T) {
	testenv.Image(t)
	testenv.SinkBinary(t)
	runScripts(t, "testdata/script-e2e")
}
