package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

const token = "ghs_testtoken1234567890"

// failing is the report of a server that gained a high finding.
func failing(server, name, version string) report.DiffReport {
	return report.DiffReport{Server: server, Baseline: true, Result: &diff.Result{
		Old:      diff.Version{Ecosystem: "npm", Name: name, Version: "1.0.0"},
		New:      diff.Version{Ecosystem: "npm", Name: name, Version: version},
		Changes:  []diff.Change{},
		Findings: []policy.Finding{{Severity: policy.High, Kind: "host", Phase: "startup", Subject: "x.example", Summary: "looked up host x.example"}},
		FailOn:   policy.High, Verdict: "fail", Counts: map[string]int{"high": 1},
	}}
}

// TestRunPullRequest drives the Action on a pull request with a fake
// check: the inputs and the changed servers reach check.Options, and the
// reports come out as outputs, annotations, SARIF and one PR comment.
func TestRunPullRequest(t *testing.T) {
	cfg := "fail_on: high\nservers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n  other:\n    target: npm:other\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1)})
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "pull_request", api.URL, map[string]string{"network": "none", "sarif": "out.sarif", "fail-on": "medium"})
	var got check.Options
	fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
		got = o
		return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
	}
	err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Version: "test", Check: fake})
	if !errors.Is(err, verdict.ErrFindings) {
		t.Fatalf("Run: %v, want ErrFindings\n%s", err, r.stdout.String())
	}
	want := check.Options{Config: filepath.Join(ws, "mcp-audit.yml"), ConfigName: "mcp-audit.yml", FailOn: "medium",
		Servers: []string{"mail"}, Base: audit.Options{Witness: true, Differential: true, Sandbox: audit.SandboxOptions{Network: "none"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check options (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{"verdict": "fail", "findings": "1", "high": "1", "critical": "0", "sarif": "out.sarif"} {
		if v := r.output(name); v != want {
			t.Errorf("output %s = %q, want %q", name, v, want)
		}
	}
	stdout := r.stdout.String()
	if !strings.HasPrefix(stdout, "::add-mask::"+token) || strings.Count(stdout, token) != 1 {
		t.Errorf("the token must be masked first and never printed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "::error file=mcp-audit.yml,line=3,title=mcp-audit%3A mail high::mail 1.0.1: looked up host x.example") {
		t.Errorf("no annotation on the server's line:\n%s", stdout)
	}
	if c := api.CommentsOf(42); len(c) != 1 || !strings.Contains(c[0].Body, report.MarkdownMarker) {
		t.Errorf("comments %+v", c)
	}
	// SARIF points at the line the bump changed, mail's version line.
	if sarif, err := os.ReadFile(filepath.Join(ws, "out.sarif")); err != nil || !strings.Contains(string(sarif), `"startLine": 5`) {
		t.Errorf("SARIF not on the version line (%v):\n%s", err, sarif)
	}
}

// TestRunScheduledProposesBaselines: a scheduled run asks for every new
// release and proposes the manifests the check kept as baselines.
func TestRunScheduledProposesBaselines(t *testing.T) {
	cfg := "servers:\n  sched:\n    target: npm:sched\n    range: \"^1.0.0\"\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"x": "y"})
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "schedule", api.URL, map[string]string{"update-baselines": "true"})
	fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
		if !o.NewReleases || o.Manifests == "" {
			t.Errorf("scheduled runs check new releases and keep manifests: %+v", o)
		}
		man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "sched", Version: "1.0.1"}, Outcome: m.Outcome{Status: m.StatusOK}}
		if _, err := baseline.Write(o.Manifests, man); err != nil {
			t.Fatal(err)
		}
		rep := failing("sched", "sched", "1.0.1")
		rep.Result.Findings, rep.Result.Verdict, rep.Result.Counts = nil, "pass", map[string]int{}
		return []report.DiffReport{rep}, nil
	}
	if err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: fake}); err != nil {
		t.Fatalf("Run: %v\n%s", err, r.stdout.String())
	}
	if _, ok := api.Files["baselines/npm/sched/1.0.1.json"]; len(api.Pulls) != 1 || !ok {
		t.Fatalf("pulls %+v, files %d", api.Pulls, len(api.Files))
	}
	if r.output("pull-request") == "" || r.output("verdict") != "pass" {
		t.Errorf("outputs: pull-request %q verdict %q", r.output("pull-request"), r.output("verdict"))
	}
}

// TestRunRejectsBadInputs: a bad boolean input or configuration is a usage
// error, found before any check runs.
func TestRunRejectsBadInputs(t *testing.T) {
	ws := repo(t, map[string]string{"mcp-audit.yml": "servers:\n  a:\n    target: npm:a\n    frobnicate: 1\n"}, map[string]string{"x": "y"})
	noCheck := func(context.Context, *config.Config, check.Options) ([]report.DiffReport, error) {
		t.Error("check ran")
		return nil, nil
	}
	for _, inputs := range []map[string]string{{"comment": "maybe"}, {}} {
		r := newRunner(t, ws, "pull_request", "http://127.0.0.1:1", inputs)
		err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Check: noCheck})
		if !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("inputs %v: %v, want a usage error", inputs, err)
		}
	}
}

// TestRunWritesHTMLReportAndLinksIt: the rug-pull view goes into the
// workspace beside the Markdown report (output html-report), and when
// the workflow uploads it (input report-artifact) the comment links the
// run that holds it.
func TestRunWritesHTMLReportAndLinksIt(t *testing.T) {
	cfg := "servers:\n  mail:\n    target: npm:mail\n    version: 1.0.0\n"
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg}, map[string]string{"mcp-audit.yml": strings.Replace(cfg, "1.0.0", "1.0.1", 1)})
	api := testenv.NewGitHub(t, token)
	r := newRunner(t, ws, "pull_request", api.URL, map[string]string{"report-artifact": "mcp-audit-report"})
	r.vars["GITHUB_RUN_ID"], r.vars["GITHUB_SERVER_URL"] = "4242", "https://github.com"
	fake := func(ctx context.Context, c *config.Config, o check.Options) ([]report.DiffReport, error) {
		return []report.DiffReport{failing("mail", "mail", "1.0.1")}, nil
	}
	if err := Run(context.Background(), Env{Stdout: &r.stdout, Getenv: r.getenv, Version: "test", Check: fake}); !errors.Is(err, verdict.ErrFindings) {
		t.Fatalf("Run: %v", err)
	}
	if got := r.output("html-report"); got != filepath.Join(".mcp-audit", "report.html") {
		t.Errorf("output html-report = %q", got)
	}
	page, err := os.ReadFile(filepath.Join(ws, ".mcp-audit", "report.html"))
	if err != nil || !strings.Contains(string(page), "what changed") || !strings.Contains(string(page), "looked up host x.example") {
		t.Errorf("the HTML report (%v):\n%.400s", err, page)
	}
	c := api.CommentsOf(42)
	if len(c) != 1 || !strings.Contains(c[0].Body, "`report.html` in the `mcp-audit-report` artifact of [this run](https://github.com/acme/tools/actions/runs/4242)") {
		t.Errorf("the comment does not link the artifact: %+v", c)
	}
}
