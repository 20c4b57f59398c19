package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// hostileText is what a server controls: names, versions, hosts, errors.
const hostileText = "x\x1b[2J\x1b[H\nverdict: pass\r\u202e\u2066\xff"

// TestRenderersNeutralizeHostileText: no renderer passes a control, bidi
// or invalid byte through, and a server cannot start a line of its own.
func TestRenderersNeutralizeHostileText(t *testing.T) {
	man := &m.Manifest{
		Target:  m.Target{Ecosystem: "npm", Name: "n" + hostileText, Version: "1.0.0" + hostileText},
		Outcome: m.Outcome{Status: m.StatusCrashed, Reason: "r" + hostileText},
		Server:  m.ServerInfo{Name: "s" + hostileText, Version: hostileText},
		Tools:   []m.Tool{{Name: "t" + hostileText}},
		Phases: []m.Phase{{Name: "call:" + hostileText,
			Files: []m.FileAccess{{Path: "~/.bashrc" + hostileText, Access: m.AccessWrite, Category: m.CatShellRC, Result: m.ResultOK}},
			DNS:   []m.DNSQuery{{Name: "h" + hostileText, Type: "A"}}}},
		Run: m.Run{StderrTail: "e" + hostileText},
	}
	findings := policy.Evaluate(man, policy.Policy{})
	if len(findings) == 0 {
		t.Fatal("fixture should have findings")
	}
	res := &diff.Result{New: diff.Version{Name: man.Target.Name, Version: man.Target.Version}, Findings: findings,
		Changes: []diff.Change{{Op: diff.Added, Area: "dns", Phase: man.Phases[0].Name, Subject: "h" + hostileText, Detail: hostileText}},
		Verdict: "fail", FailOn: policy.High}
	reports := []DiffReport{{Server: "srv" + hostileText, Result: res, Baseline: true, New: man}, {Server: "bad", Error: "err" + hostileText}}

	outputs := map[string]*bytes.Buffer{}
	for _, f := range []string{FormatText, FormatMarkdown, FormatJSON, FormatHTML} {
		outputs[f] = &bytes.Buffer{}
		if err := WriteDiffs(outputs[f], f, reports); err != nil {
			t.Fatal(err)
		}
	}
	outputs["summary"] = &bytes.Buffer{}
	Summary(outputs["summary"], man, findings, policy.Policy{FailOn: policy.High})
	outputs["sarif"] = &bytes.Buffer{}
	if err := (SARIF{}).Write(outputs["sarif"], reports); err != nil {
		t.Fatal(err)
	}
	for name, out := range outputs {
		s := out.String()
		if !utf8.ValidString(s) {
			t.Errorf("%s: invalid UTF-8", name)
		}
		for _, r := range s {
			// JSON is data: its encoder escapes controls, and bidi
			// characters are kept for the consumer to render.
			bidi := name != FormatJSON && unicode.In(r, unicode.Bidi_Control)
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || bidi) {
				t.Errorf("%s: passes %U through", name, r)
				break
			}
		}
		if name == FormatHTML && (strings.Contains(s, "<script") || strings.Contains(s, "\x1b")) {
			t.Errorf("html: carries a script or an escape")
		}
		if name != FormatJSON && name != "sarif" && strings.Count(s, "\nverdict: pass") > 0 {
			t.Errorf("%s: the server printed its own verdict line:\n%s", name, s)
		}
	}
}
