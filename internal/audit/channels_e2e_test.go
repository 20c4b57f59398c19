package audit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// hitHows maps "canary how" to the phases holding such a hit.
func hitHows(man *m.Manifest) map[string]string {
	out := map[string]string{}
	for _, p := range man.Phases {
		for _, h := range p.Canaries {
			if _, ok := out[h.Canary+" "+h.How]; !ok { // the first phase: calls are made twice
				out[h.Canary+" "+h.How] = p.Name
			}
		}
	}
	return out
}

// checkNoValues fails when the manifest carries a canary-looking value in
// the text it keeps of what the server said.
func checkNoValues(t *testing.T, man *m.Manifest) {
	t.Helper()
	b, _ := json.Marshal(man)
	for _, prefix := range []string{"ghp_", "sk-proj-", "npm_", "xoxb-", "sk_live_", "sk_test_", "sk-ant-api03-"} {
		if strings.Contains(string(b), prefix) {
			t.Errorf("the manifest carries a canary value (%s…)", prefix)
		}
	}
}

// TestServerChannelsChecked has the fixture say bad things outside its
// answers when echo is called: a sampling request carrying a canary, one
// with instructions for the model, an elicitation for a GitHub token, a
// logging notification carrying a canary, a progress notification with
// instructions, and canaries and instructions on stderr and on a stray
// stdout line. Each is a finding in phase call:echo, and the values the
// manifest redacts still produce their hits.
func TestServerChannelsChecked(t *testing.T) {
	t.Parallel()
	args := []string{"say=sample-canary", "say=sample-inject", "say=elicit-token", "say=log-canary",
		"say=progress-inject", "say=stderr-canary", "say=stdout-canary", "say=stderr-inject"}
	man := run(t, audit.Options{Target: fixture, Args: args})
	hows := hitHows(man)
	for _, want := range []string{"env:GITHUB_TOKEN " + m.HowServerRequest, "env:OPENAI_API_KEY " + m.HowNotification,
		"env:SLACK_BOT_TOKEN " + m.HowStderr, "env:STRIPE_SECRET_KEY " + m.HowStdout} {
		if hows[want] != "call:echo" {
			t.Errorf("hit %q in phase %q, want call:echo; hits %v", want, hows[want], hows)
		}
	}
	fs := findings(man)
	for _, subject := range []string{"env:GITHUB_TOKEN", "env:OPENAI_API_KEY", "env:SLACK_BOT_TOKEN", "env:STRIPE_SECRET_KEY"} {
		if !hasFinding(fs, policy.KindCanary, policy.High, subject) {
			t.Errorf("no high canary finding for %s", subject)
		}
	}
	for _, tc := range []struct {
		sev     policy.Severity
		subject string
	}{
		{policy.High, "request sampling/createMessage"},
		{policy.High, "request elicitation/create"},
		{policy.High, "notification notifications/progress"},
		{policy.Medium, "stderr"},
	} {
		if !hasFinding(fs, policy.KindMessage, tc.sev, tc.subject) {
			t.Errorf("no %s finding on %q; findings %+v", tc.sev, tc.subject, fs)
		}
	}
	checkNoValues(t, man)
}

// TestServerChannelsControl says the same things through the channels
// that were always checked: every canary in echo's result, the same
// instructions in echo's description, and an elicitation for a user name
// (not a secret). The canaries are mcp-output hits, the instructions a
// tool finding, and nothing is a server-message finding.
func TestServerChannelsControl(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: fixture, Args: []string{"say=echo-canary", "say=elicit-name", "surface=description"}})
	hows := hitHows(man)
	for _, c := range []string{"env:GITHUB_TOKEN", "env:OPENAI_API_KEY", "env:SLACK_BOT_TOKEN", "env:STRIPE_SECRET_KEY", "env:NPM_TOKEN", "env:ANTHROPIC_API_KEY"} {
		if hows[c+" "+m.HowMCPOutput] != "call:echo" {
			t.Errorf("no mcp-output hit for %s in call:echo; hits %v", c, hows)
		}
	}
	fs := findings(man)
	if !hasFinding(fs, policy.KindTool, policy.High, "tool echo") {
		t.Error("the instructions in echo's description are not a finding")
	}
	for _, f := range fs {
		if f.Kind == policy.KindMessage {
			t.Errorf("server-message finding in the control: %+v", f)
		}
	}
	checkNoValues(t, man)
}

// TestErrorAndOversizedChecked: an error answer whose message carries a
// canary, and a 9 MiB answer whose tail carries one. Both are hits (the
// error's message is redacted in the call's detail); the oversized answer
// is also a finding of its own.
func TestErrorAndOversizedChecked(t *testing.T) {
	t.Parallel()
	t.Run("error", func(t *testing.T) {
		man := run(t, audit.Options{Target: fixture, Args: []string{"say=error-canary"}})
		if hitHows(man)["env:NPM_TOKEN "+m.HowMCPOutput] != "call:echo" {
			t.Errorf("no hit for the canary in the error answer: %v", hitHows(man))
		}
		if c := callsByName(man)["echo"]; c.Outcome != m.CallError || !strings.Contains(c.Detail, "<canary env:NPM_TOKEN>") {
			t.Errorf("echo call %+v", c)
		}
		checkNoValues(t, man)
	})
	t.Run("oversized", func(t *testing.T) {
		man := run(t, audit.Options{Target: fixture, Args: []string{"say=huge-canary"}})
		if hitHows(man)["env:ANTHROPIC_API_KEY "+m.HowMCPOutput] != "call:echo" {
			t.Errorf("no hit for the canary in the oversized answer's tail: %v", hitHows(man))
		}
		if c := callsByName(man)["echo"]; c.Outcome != m.CallTooLarge {
			t.Errorf("echo call %+v", c)
		}
		if !hasFinding(findings(man), policy.KindMessage, policy.Medium, "oversized") {
			t.Errorf("the oversized answer is not a finding: %+v", findings(man))
		}
	})
}

// TestSurfaceTextsChecked puts instructions for the model into the parts
// of the server's surface a client shows besides descriptions: a tool's
// output schema and annotations, a prompt argument's description, a
// resource template's description. Each is kept in the manifest and is a
// finding, as the same text in a tool's description is
// (TestServerChannelsControl).
func TestSurfaceTextsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		where, subject string
		kept           func(man *m.Manifest) bool
	}{
		{"output-schema", "tool echo", func(man *m.Manifest) bool {
			return len(man.Tools) > 0 && strings.Contains(string(man.Tools[0].OutputSchema), "id_rsa")
		}},
		{"annotations", "tool echo", func(man *m.Manifest) bool {
			return len(man.Tools) > 0 && strings.Contains(string(man.Tools[0].Annotations), "id_rsa")
		}},
		{"prompt-arg", "prompt summary", func(man *m.Manifest) bool {
			return len(man.Prompts) == 1 && len(man.Prompts[0].ArgumentDescriptions) == 1 &&
				strings.Contains(man.Prompts[0].ArgumentDescriptions[0].Description, "id_rsa")
		}},
		{"template", "resource template notes:///{name}", func(man *m.Manifest) bool {
			return len(man.ResourceTemplates) == 1 && strings.Contains(man.ResourceTemplates[0].Description, "id_rsa")
		}},
	} {
		t.Run(tc.where, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{"surface=" + tc.where}})
			if !tc.kept(man) {
				t.Errorf("the text is not kept in the manifest: tools %+v prompts %+v templates %+v", man.Tools, man.Prompts, man.ResourceTemplates)
			}
			fs := findings(man)
			if !hasFinding(fs, policy.KindTool, policy.High, tc.subject) {
				t.Errorf("no finding on %s: %+v", tc.subject, fs)
			}
		})
	}
}
