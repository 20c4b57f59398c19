package audit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestInjectionEvasions: instructions for the model that today's checks
// miss — in a tool's result, in look-alike letters, or paraphrased as what
// the assistant does — are high findings. The controls: the same
// instruction plainly in the description (caught), and an ordinary note
// in the result (nothing).
func TestInjectionEvasions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		found func(fs []policy.Finding) bool
	}{
		{"result=inject", resultFinding},
		{"surface=homoglyph", toolFinding},
		{"surface=paraphrase", toolFinding},
		{"surface=description", toolFinding}, // the control: no trick
		{"result=benign", func(fs []policy.Finding) bool { return !resultFinding(fs) && !toolFinding(fs) }}, // the control: no harm
	} {
		t.Run(tc.mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{tc.mode}})
			if fs := findings(man); !tc.found(fs) {
				t.Errorf("findings %+v\nmessages %+v", fs, messages(man))
			}
		})
	}
}

func resultFinding(fs []policy.Finding) bool {
	for _, f := range fs {
		if f.Kind == policy.KindMessage && f.Severity >= policy.High && inCall(f, "echo") &&
			strings.Contains(f.Subject, m.ChannelResult) {
			return true
		}
	}
	return false
}

// inCall: the finding is of a call of the tool, alone or merged with the
// same finding of its other calls (phase "calls", the calls listed).
func inCall(f policy.Finding, tool string) bool {
	if strings.HasPrefix(f.Phase, m.PhaseCallPrefix+tool) {
		return true
	}
	return f.Phase == policy.PhaseCalls && slices.ContainsFunc(f.Calls, func(c string) bool { return strings.HasPrefix(c, m.PhaseCallPrefix+tool) })
}

func toolFinding(fs []policy.Finding) bool {
	return hasFinding(fs, policy.KindTool, policy.High, "tool echo")
}

func messages(man *m.Manifest) []m.ServerMessage {
	var out []m.ServerMessage
	for _, p := range man.Phases {
		out = append(out, p.Messages...)
	}
	return out
}
