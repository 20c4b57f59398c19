package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestActionPullRequestRugPull runs the entrypoint on a pull request that
// bumps a server to a release with a hidden recipient: real engine, local
// registry, fake GitHub API. The comment is created once and updated the
// second time, and names the new behavior with its evidence.
func TestActionPullRequestRugPull(t *testing.T) {
	testenv.Image(t)
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg.PublishFixture(t, fixture, "mail-fixture", "1.0.0", "mail")
	reg.PublishFixture(t, fixture, "mail-fixture", "1.0.1", "mail", "mail-bcc")
	reg.Use(t)
	cfgOld := "fail_on: high\nidle: {quiet: 500ms, min: 200ms}\nservers:\n  mail:\n    target: npm:mail-fixture\n    version: 1.0.0\n"
	cfgNew := strings.Replace(cfgOld, "1.0.0", "1.0.1", 1)
	// The base commit holds the reviewed baseline of 1.0.0.
	tmp := t.TempDir()
	os.WriteFile(filepath.Join(tmp, "mcp-audit.yml"), []byte(cfgOld), 0o644)
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"baseline", "update", "--config", filepath.Join(tmp, "mcp-audit.yml")}, nil, &out, &errb, os.Getenv); code != 0 {
		t.Fatalf("baseline update: %d %s %s", code, out.String(), errb.String())
	}
	baselineJSON, err := os.ReadFile(filepath.Join(tmp, "baselines", "npm", "mail-fixture", "1.0.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	ws := repo(t, map[string]string{"mcp-audit.yml": cfgOld, "baselines/npm/mail-fixture/1.0.0.json": string(baselineJSON)},
		map[string]string{"mcp-audit.yml": cfgNew})
	api := testenv.NewGitHub(t, token)
	e := newActionEnv(t, ws, "pull_request", api, map[string]string{"sarif": "mcp-audit.sarif"})

	for round := 1; round <= 2; round++ {
		code, stdout, stderr := e.run()
		if code != ExitFindings {
			t.Fatalf("round %d: exit %d, want %d\n%s\n%s", round, code, ExitFindings, stdout, stderr)
		}
		comments := api.CommentsOf(42)
		if len(comments) != 1 {
			t.Fatalf("round %d: %d comments, want exactly one", round, len(comments))
		}
		body := comments[0].Body
		for _, want := range []string{"<!-- mcp-audit-report -->", "mail-fixture) 1.0.0 → 1.0.1", "gained a field", "<code>Bcc</code>",
			"carries an address the caller did not supply", "archive&#64;collector.example", "mcp-audit baseline update --server mail --version 1.0.1"} {
			if !strings.Contains(body, want) {
				t.Errorf("round %d: comment lacks %q:\n%s", round, want, body)
			}
		}
		if strings.Count(stdout+stderr, token) != 1 {
			t.Errorf("round %d: the token was printed", round)
		}
		if !strings.Contains(stdout, "::error file=mcp-audit.yml,line=4,title=mcp-audit%3A mail high::") {
			t.Errorf("round %d: no annotation on the server's line:\n%s", round, stdout)
		}
	}
	if e.output("verdict") != "fail" || e.output("high") != "2" {
		t.Errorf("outputs: verdict %q high %q", e.output("verdict"), e.output("high"))
	}
	summary, _ := os.ReadFile(e.summary)
	if !strings.Contains(string(summary), "gained a field") {
		t.Errorf("job summary:\n%s", summary)
	}
	if sarif, err := os.ReadFile(filepath.Join(ws, "mcp-audit.sarif")); err != nil || !strings.Contains(string(sarif), `"ruleId": "payload/`) {
		t.Errorf("sarif: %v\n%s", err, sarif)
	}
	if rep, err := os.ReadFile(filepath.Join(ws, e.output("report"))); err != nil || !strings.Contains(string(rep), "gained a field") {
		t.Errorf("report output: %v", err)
	}
}

// TestActionScheduledProposesBaselines: the scheduled run audits every new
// release and proposes its baseline in one pull request.
func TestActionScheduledProposesBaselines(t *testing.T) {
	testenv.Image(t)
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg.PublishFixture(t, fixture, "sched-fixture", "1.0.0")
	reg.Use(t)
	cfg := "idle: {quiet: 500ms, min: 200ms}\nservers:\n  sched:\n    target: npm:sched-fixture\n    range: \"^1.0.0\"\n"
	tmp := t.TempDir()
	os.WriteFile(filepath.Join(tmp, "mcp-audit.yml"), []byte(cfg), 0o644)
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"baseline", "update", "--config", filepath.Join(tmp, "mcp-audit.yml")}, nil, &out, &errb, os.Getenv); code != 0 {
		t.Fatalf("baseline update: %d %s", code, errb.String())
	}
	bj, _ := os.ReadFile(filepath.Join(tmp, "baselines", "npm", "sched-fixture", "1.0.0.json"))
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg, "baselines/npm/sched-fixture/1.0.0.json": string(bj)}, map[string]string{"x": "y"})
	reg.PublishFixture(t, fixture, "sched-fixture", "1.0.1")
	for _, event := range []string{"schedule", "workflow_dispatch"} {
		api := testenv.NewGitHub(t, token)
		e := newActionEnv(t, ws, event, api, map[string]string{"update-baselines": "true"})
		code, stdout, stderr := e.run()
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", event, code, stdout, stderr)
		}
		if len(api.Pulls) != 1 || !strings.Contains(api.Pulls[0].Body, "sched-fixture) 1.0.0 → 1.0.1") {
			t.Fatalf("%s: pulls %+v", event, api.Pulls)
		}
		if _, ok := api.Files["baselines/npm/sched-fixture/1.0.1.json"]; !ok {
			t.Errorf("%s: proposed files %v", event, keysOf(api.Files))
		}
		if e.output("pull-request") == "" {
			t.Errorf("%s: no pull-request output", event)
		}
	}
}
