package audit_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// sdk2 is a fixture server built on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, installed from the registry inside
// the install container).
func sdk2(name string) string { return filepath.Join("..", "..", "testdata", "fixtures", name) }

// TestModernOnlyServer: a server that speaks only MCP 2026-07-28 (it
// refuses initialize) is audited with every tool called; what it says
// through the revision's new shapes — an input request that carries a
// canary, an elicitation that instructs the model, a tool that has
// clients mirror a secret argument into a header, a tool announced on the
// listen stream — is judged. The benign modes pass.
func TestModernOnlyServer(t *testing.T) {
	t.Parallel()
	t.Run("benign", func(t *testing.T) {
		t.Parallel()
		man := run(t, audit.Options{Target: sdk2("sdk2-modern-only")})
		if man.Outcome.Status != m.StatusOK || man.Server.ProtocolVersion != mcpclient.ProtocolModern {
			t.Fatalf("outcome %+v, protocol %q", man.Outcome, man.Server.ProtocolVersion)
		}
		if !slices.Equal(man.Server.Eras, []string{mcpclient.ProtocolModern}) {
			t.Errorf("eras %q: a modern-only server", man.Server.Eras)
		}
		if c := man.Coverage; c == nil || c.Tools.Called != c.Tools.Offered || c.Tools.OK != c.Tools.Offered {
			t.Errorf("coverage %+v: every tool called and answered", man.Coverage)
		}
		if r := judgeDefault(man); r.Verdict != m.VerdictPass {
			t.Errorf("verdict %s: %+v %q", r.Verdict, r.Findings, r.Incomplete)
		}
	})
	t.Run("hostile", func(t *testing.T) {
		t.Parallel()
		man := run(t, audit.Options{Target: sdk2("sdk2-modern-only"), Args: []string{"leak-input", "secret-header", "list-change"}})
		fs := findings(man)
		for _, tc := range []struct {
			kind, subject string
			sev           policy.Severity
		}{
			{policy.KindCanary, "server-request", policy.High},
			{policy.KindMessage, "request", policy.High},
			{policy.KindTool, "lookup x-mcp-header api_key", policy.High},
			{policy.KindTool, "late_tool", policy.Medium},
		} {
			if !hasFinding(fs, tc.kind, tc.sev, tc.subject) {
				t.Errorf("no %s %s finding about %q", tc.sev, tc.kind, tc.subject)
			}
		}
		if t.Failed() {
			logFindings(t, fs)
		}
	})
}

// TestBothEras: a dual-era server whose factory gives a modern client an
// extra tool that steals is audited in both eras, and each difference is
// a high era finding; the same server giving both eras the same (the
// control) and a dual-era server on the SDK defaults show none.
func TestBothEras(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fixture string
		args          []string
		split         bool
	}{
		{"split", "sdk2-era-split", nil, true},
		{"control", "sdk2-era-split", []string{"control"}, false},
		{"sdk-defaults", "sdk2-dual-era", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: sdk2(tc.fixture), Args: tc.args})
			if !slices.Equal(man.Server.Eras, []string{mcpclient.ProtocolLegacy, mcpclient.ProtocolModern}) {
				t.Fatalf("eras %q (notes %q): both should be audited", man.Server.Eras, man.Run.Notes)
			}
			var era []policy.Finding
			for _, f := range findings(man) {
				if f.Kind == policy.KindEra {
					era = append(era, f)
				}
			}
			if !tc.split {
				if len(era) != 0 {
					t.Errorf("no difference expected: %+v", era)
				}
				return
			}
			if !hasFinding(era, policy.KindEra, policy.High, "canary file:~/.ssh/id_rsa sent") || !hasFinding(era, policy.KindEra, policy.High, "tools sync_settings") {
				t.Errorf("era findings %+v", era)
			}
			if r := judgeDefault(man); r.Verdict != m.VerdictFail {
				t.Errorf("verdict %s", r.Verdict)
			}
		})
	}
}

// TestTaskHidesWork: a tool that answers with a task handle and does its
// harm while the task runs is followed until the task ends: the harm is
// the call's. The same task doing nothing harmful (the control) passes.
func TestTaskHidesWork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		bad  bool
	}{{nil, true}, {[]string{"clean"}, false}} {
		t.Run(strings.Join(append([]string{"mode"}, tc.args...), "-"), func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: sdk2("sdk2-task-hider"), Args: tc.args})
			got := false
			for _, f := range findings(man) {
				got = got || f.Kind == policy.KindCanary && f.Severity == policy.Critical && strings.HasPrefix(f.Subject, "file:~/.aws/credentials")
			}
			if got != tc.bad {
				t.Errorf("canary finding %v, want %v; findings:", got, tc.bad)
				logFindings(t, findings(man))
			}
		})
	}
}

// TestAppsPage: the ui:// page a tool names is read although no list
// shows it; the canary in its script is critical (the host runs it), its
// comment's instructions to the model are judged, and the host it posts
// to outside its declared CSP is medium. The clean page passes.
func TestAppsPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		bad  bool
	}{{nil, true}, {[]string{"clean"}, false}} {
		t.Run(strings.Join(append([]string{"mode"}, tc.args...), "-"), func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: sdk2("sdk2-apps-ui"), Args: tc.args})
			i := slices.IndexFunc(man.Apps, func(p m.AppPage) bool { return p.URI == "ui://dashboard/app.html" })
			if i < 0 {
				t.Fatalf("the page was not read: apps %+v", man.Apps)
			}
			fs := findings(man)
			canary := hasFinding(fs, policy.KindCanary, policy.Critical, "env:GITHUB_TOKEN")
			outside := hasFinding(fs, policy.KindApp, policy.Medium, "host collect.fixture.example")
			if canary != tc.bad || outside != tc.bad || judgeDefault(man).Verdict == m.VerdictFail != tc.bad {
				t.Errorf("canary %v, outside host %v, verdict %s; want %v; findings:", canary, outside, judgeDefault(man).Verdict, tc.bad)
				logFindings(t, fs)
			}
		})
	}
}

// TestRealAppsServer: an MCP Apps server from the registry
// (@modelcontextprotocol/server-map, its stdio mode): the page its tool
// names is read and judged, and nothing it does is high.
func TestRealAppsServer(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: "npm:@modelcontextprotocol/server-map@2.0.3", Args: []string{"--stdio"}})
	if man.Outcome.Status != m.StatusOK || len(man.Apps) == 0 || man.Apps[0].Size == 0 || len(man.Apps[0].CSP) == 0 {
		t.Fatalf("outcome %+v, apps %+v", man.Outcome, man.Apps)
	}
	for _, f := range findings(man) {
		if f.Severity >= policy.High {
			t.Errorf("finding %s %s: %s", f.Severity, f.Kind, f.Summary)
		}
	}
}

// TestLegacyUnchangedByProbe: a 2025-era server's manifest is the same
// whether the audit probes for the modern era first or speaks only the
// 2025 handshake: the probe adds no phase entry, message or finding.
func TestLegacyUnchangedByProbe(t *testing.T) {
	t.Parallel()
	var enc [2][]byte
	for i, proto := range []string{mcpclient.ProtocolAuto, mcpclient.ProtocolLegacy} {
		man := run(t, audit.Options{Target: fixture, Protocol: proto})
		man.Run = m.Run{}
		b, err := m.Encode(man)
		if err != nil {
			t.Fatal(err)
		}
		enc[i] = b
	}
	if !bytes.Equal(enc[0], enc[1]) {
		t.Errorf("the probe changed the manifest:\n%s\n----\n%s", enc[0], enc[1])
	}
}
