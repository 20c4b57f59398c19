package action

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// manifestJSON is a baseline of mail at version with the named tools.
func manifestJSON(t *testing.T, version string, tools ...string) string {
	t.Helper()
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "mail", Version: version}}
	for _, n := range tools {
		man.Tools = append(man.Tools, m.Tool{Name: n, Description: n})
	}
	data, err := m.Encode(man)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRunPullRequestCannotLoosenItsOwnPolicy: a pull request that bumps a
// server, allows the host its new version talks to, and adds a baseline
// that already holds the new behavior is checked under the base's policy
// and baselines, and fails on the loosening alone, even when the audit
// itself passes. A comment by another user carrying the sticky comment's
// marker is left alone.
func TestRunPullRequestCannotLoosenItsOwnPolicy(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	loose := "fail_on: none\nservers:\n  mail:\n    target: npm:mail\n    version: 1.0.1\n    allow:\n      hosts: [collect.evil.example]\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg, "baselines/npm/mail/1.0.0.json": manifestJSON(t, "1.0.0", "send")},
		map[string]string{"mcp-audit.yml": loose, "baselines/npm/mail/1.0.1.json": manifestJSON(t, "1.0.1", "send", "exfiltrate")})
	api := testenv.NewGitHub(t, token)
	hijack := testenv.Comment{ID: 1, Body: report.MarkdownMarker + "\n## mcp-audit: ✅ all clear", User: testenv.User{Login: "mallory"}}
	api.Comments[42] = []testenv.Comment{hijack}
	r := newRunner(t, ws, "pull_request", api.URL, nil)
	fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
		s := c.Server("mail")
		if c.FailOn != "" || len(s.Allow.Hosts) != 0 || s.Version != "1.0.1" {
			t.Errorf("checked under the pull request's policy: fail_on %q allow %v version %s", c.FailOn, s.Allow.Hosts, s.Version)
		}
		if v, _ := baseline.Newest(c.BaselineDir(), "npm", "mail"); v != "1.0.0" {
			t.Errorf("newest baseline %q, want the base's 1.0.0", v)
		}
		rep := failing("mail", "mail", "1.0.1")
		rep.Result.Findings, rep.Result.Verdict, rep.Result.Counts = nil, m.VerdictPass, map[string]int{}
		return []report.DiffReport{rep}, nil
	}
	err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: fake})
	if !errors.Is(err, verdict.ErrFindings) {
		t.Fatalf("Run: %v, want ErrFindings\n%s", err, r.stdout.String())
	}
	if r.output("verdict") != "fail" || r.output("high") != "3" {
		t.Errorf("verdict %q high %q, want fail and 3 (fail_on, allow.hosts, baseline)", r.output("verdict"), r.output("high"))
	}
	cs := api.CommentsOf(42)
	if len(cs) != 2 || cs[0] != hijack {
		t.Fatalf("the other user's comment must stay as it was and ours be new: %+v", cs)
	}
	for _, want := range []string{"Policy changes in this pull request", "⚠️ loosens", "<code>collect.evil.example</code>",
		"loosens the policy it is checked under", "baselines/npm/mail/1.0.1.json"} {
		if !strings.Contains(cs[1].Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, cs[1].Body)
		}
	}
}

// TestRunPullRequestPolicyOnly: a pull request that only lowers the
// file-wide fail_on changes no server, yet fails without an audit.
func TestRunPullRequestPolicyOnly(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": "fail_on: critical\n" + cfg})
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "pull_request", api.URL, nil)
	noCheck := func(context.Context, *config.Config, check.Options) ([]report.DiffReport, error) {
		t.Error("check ran, but no server changed")
		return nil, nil
	}
	err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: noCheck})
	if !errors.Is(err, verdict.ErrFindings) || r.output("verdict") != "fail" {
		t.Fatalf("Run: %v verdict %q, want a failure", err, r.output("verdict"))
	}
	if !strings.Contains(r.stdout.String(), "::error file=mcp-audit.yml") {
		t.Errorf("no annotation:\n%s", r.stdout.String())
	}
}

// TestRunPullRequestTighteningPasses: a stricter policy is shown, not
// failed.
func TestRunPullRequestTighteningPasses(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": "fail_on: low\n" + cfg})
	r := newRunner(t, ws, "pull_request", testenv.NewGitHub(t, token).URL, nil)
	err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: nil})
	summary, _ := os.ReadFile(r.summary)
	if err != nil || r.output("verdict") != "pass" || !strings.Contains(string(summary), "None of its changes loosens") {
		t.Fatalf("Run: %v verdict %q\n%s", err, r.output("verdict"), summary)
	}
}
