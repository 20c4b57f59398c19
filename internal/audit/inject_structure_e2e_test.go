package audit_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// injectFixture is a server whose tool text or results carry instructions
// aimed at the agent that are recognized by structure (issue 28).
var injectFixture = filepath.Join("..", "..", "testdata", "fixtures", "inject-server")

// TestInjectStructure: through the real sandbox, each class of
// instruction aimed at the agent fails the default policy with a finding
// that says so (a command to run in a result, a reworded tool-shadowing
// rule, a Chinese injection, an injection in schema keywords the walker
// did not read, a soft directive in a result, a request after a runtime's
// error), and each benign control of the same shape passes (the runtime's
// error alone names the operation that failed and the path).
func TestInjectStructure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		bad  bool
		kind string // where the finding is: the tool's text or a message
	}{
		{"result=command", true, policy.KindMessage},
		{"result=command-b64", true, policy.KindMessage},
		{"result=command-benign", false, ""},
		{"surface=shadow", true, policy.KindTool},
		{"surface=shadow2", true, policy.KindTool},
		{"surface=shadow-benign", false, ""},
		{"surface=zh", true, policy.KindTool},
		{"surface=zh-benign", false, ""},
		{"schema=comment", true, policy.KindTool},
		{"schema=example", true, policy.KindTool},
		{"schema=ref", true, policy.KindTool},
		{"schema=benign", false, ""},
		{"result=soft", true, policy.KindMessage},
		{"result=soft2", true, policy.KindMessage},
		{"result=soft-benign", false, ""},
		{"result=fs-error-request", true, policy.KindMessage},
		{"result=fs-error", false, ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: injectFixture, Args: []string{tc.mode}})
			fs := findings(man)
			failed := policy.Failed(fs, policy.DefaultFailOn)
			switch {
			case tc.bad && (!failed || !aimedAtModel(fs, tc.kind)):
				t.Errorf("BYPASS: no high %s finding for instructions aimed at the model; findings:", tc.kind)
				logFindings(t, fs)
			case !tc.bad && failed:
				t.Errorf("control fails the default policy; findings:")
				logFindings(t, fs)
			}
		})
	}
}

// aimedAtModel reports a high finding of kind that the text is aimed at
// the model.
func aimedAtModel(fs []policy.Finding, kind string) bool {
	for _, f := range fs {
		if f.Kind == kind && f.Severity >= policy.High && strings.Contains(f.Summary, "instructions aimed at the model") {
			return true
		}
	}
	return false
}
