package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestBaselineNeverLaundersHarm: a new version that reads the planted
// credentials and sends one out fails its check; the report offers no
// accept command; `baseline update` refuses it; with --accept-risk the
// reason is recorded and every later check of that version still fails,
// marked as accepted risk; the scheduled Action proposes no such baseline.
func TestBaselineNeverLaundersHarm(t *testing.T) {
	testenv.Image(t)
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg.PublishFixture(t, fixture, "weather", "1.0.0")
	reg.PublishFixture(t, fixture, "weather", "1.1.0", "read-credentials", "post-fetch")
	reg.Use(t)
	cfg := "idle: {quiet: 500ms, min: 200ms}\nservers:\n  weather:\n    target: npm:weather\n    range: \"^1.0.0\"\n"
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "mcp-audit.yml")
	os.WriteFile(cfgPath, []byte(cfg), 0o644)
	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		code := Run(ctx, args, nil, &out, &errb, os.Getenv)
		return out.String(), errb.String(), code
	}
	if _, e, code := run("baseline", "update", "--config", cfgPath, "--server", "weather", "--version", "1.0.0"); code != 0 {
		t.Fatalf("clean baseline: exit %d %s", code, e)
	}
	// The check fails, and its report (the PR comment) offers no accept command.
	md := filepath.Join(dir, "report.md")
	if _, e, code := run("check", "--config", cfgPath, "--new-releases", "--format", "markdown", "-o", md); code != ExitFindings {
		t.Fatalf("check of the thief: exit %d %s", code, e)
	}
	comment, _ := os.ReadFile(md)
	if strings.Contains(string(comment), "baseline update") || !strings.Contains(string(comment), "Not offered as a baseline") {
		t.Errorf("the report suggests accepting a credential thief:\n%s", comment)
	}
	// baseline update refuses it, naming the findings.
	thief := filepath.Join(dir, "baselines", "npm", "weather", "1.1.0.json")
	_, e, code := run("baseline", "update", "--config", cfgPath, "--server", "weather", "--version", "1.1.0")
	if code != ExitFindings || !strings.Contains(e, "harmful") || !strings.Contains(e, "~/.aws/credentials") {
		t.Fatalf("baseline update of the thief: exit %d %s", code, e)
	}
	if _, err := os.Stat(thief); err == nil {
		t.Fatal("the thief was recorded as a baseline")
	}
	// With --accept-risk the reason is recorded, and the check still fails.
	if _, e, code := run("baseline", "update", "--config", cfgPath, "--server", "weather", "--version", "1.1.0", "--accept-risk", "vendor says the AWS read is a feature"); code != 0 {
		t.Fatalf("baseline update --accept-risk: exit %d %s", code, e)
	}
	data, _ := os.ReadFile(thief)
	man, err := m.Decode(data)
	if err != nil || man.AcceptedRisk == nil || man.AcceptedRisk.Reason != "vendor says the AWS read is a feature" || len(man.AcceptedRisk.Findings) == 0 {
		t.Fatalf("accepted risk not recorded: %v %+v", err, man)
	}
	js := filepath.Join(dir, "report.json")
	if _, e, code := run("check", "--config", cfgPath, "--format", "json", "-o", js); code != ExitFindings {
		t.Fatalf("check after --accept-risk: exit %d (want %d) %s", code, ExitFindings, e)
	}
	var rep struct{ Reports []report.DiffReport }
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Reports) != 1 || rep.Reports[0].Result == nil {
		t.Fatalf("report: %v %s", err, b)
	}
	res := rep.Reports[0].Result
	still := false
	for _, f := range res.Findings {
		still = still || strings.HasPrefix(f.Summary, "still present: ") && f.Kind == "canary"
	}
	if res.Verdict != m.VerdictFail || !still || res.AcceptedRisk == nil || res.AcceptedRisk.Reason != "vendor says the AWS read is a feature" {
		t.Errorf("check after --accept-risk: verdict %s, still present %v, accepted %+v", res.Verdict, still, res.AcceptedRisk)
	}
}

// TestScheduledActionNeverProposesHarm: the scheduled re-audit proposes no
// baseline for a new release that steals a canary.
func TestScheduledActionNeverProposesHarm(t *testing.T) {
	testenv.Image(t)
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg.PublishFixture(t, fixture, "sched-thief", "1.0.0")
	reg.Use(t)
	cfg := "idle: {quiet: 500ms, min: 200ms}\nservers:\n  thief:\n    target: npm:sched-thief\n    range: \"^1.0.0\"\n"
	tmp := t.TempDir()
	os.WriteFile(filepath.Join(tmp, "mcp-audit.yml"), []byte(cfg), 0o644)
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"baseline", "update", "--config", filepath.Join(tmp, "mcp-audit.yml")}, nil, &out, &errb, os.Getenv); code != 0 {
		t.Fatalf("baseline update: %d %s", code, errb.String())
	}
	bj, _ := os.ReadFile(filepath.Join(tmp, "baselines", "npm", "sched-thief", "1.0.0.json"))
	ws := repo(t, map[string]string{"mcp-audit.yml": cfg, "baselines/npm/sched-thief/1.0.0.json": string(bj)}, map[string]string{"x": "y"})
	reg.PublishFixture(t, fixture, "sched-thief", "1.0.1", "read-credentials")
	api := testenv.NewGitHub(t, token)
	e := newActionEnv(t, ws, "schedule", api, map[string]string{"update-baselines": "true"})
	code, stdout, stderr := e.run()
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFindings, stdout, stderr)
	}
	if _, ok := api.Files["baselines/npm/sched-thief/1.0.1.json"]; ok || len(api.Pulls) > 0 && strings.Contains(api.Pulls[0].Body, "baseline update") {
		t.Errorf("the thief was proposed as a baseline: files %v pulls %+v", keysOf(api.Files), api.Pulls)
	}
	if !strings.Contains(stdout, "not proposing") {
		t.Errorf("no warning about the withheld baseline:\n%s", stdout)
	}
}
