package action_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/cli"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

const e2eToken = "ghs_containertoken1234567890"

// stickyMarker is the marker of this job's comment (newJob's workflow and
// job), which opens it.
const stickyMarker = "<!-- mcp-audit-report workflow=acme%2Ftools%2F.github%2Fworkflows%2Fmcp-audit.yml job=audit -->"

// TestActionContainerOnARunner builds the action image from the
// repository's Dockerfile (offline, from local bases) and runs it the way
// GitHub's runner runs a Docker container action: the engine's socket, the
// workspace, home, workflow and file-command directories mounted, RUNNER_*
// naming host paths that are not mounted, INPUT_* and a real event
// payload, and a fake GitHub API and npm registry on the engine's bridge.
// A pull request that bumps a server to a release with a hidden recipient
// gets the sticky comment (and leaves alone someone else's comment that
// carries its marker), annotations, outputs, step summary, reports and
// SARIF, and fails; a pull request that only loosens the policy fails
// too; the scheduled run proposes the new release's baseline.
func TestActionContainerOnARunner(t *testing.T) {
	testenv.Image(t)
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI")
	}
	if _, err := os.Stat("/var/run/docker.sock"); err != nil {
		t.Skip("the engine is not on /var/run/docker.sock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	image := actionImage(t, ctx)
	start := time.Now()
	if v := docker(t, ctx, "run", "--rm", "--entrypoint", "/usr/local/bin/mcp-audit", image, "--version"); !strings.HasPrefix(v, "mcp-audit v0.0.0-e2e ") {
		t.Errorf("the image's mcp-audit --version: %q", v)
	}
	t.Logf("action start-up with the image present (a prebuilt image after its pull): docker run to exit %s", time.Since(start).Round(10*time.Millisecond))
	gw := bridgeGateway(t)
	reg := testenv.NewRegistryAt(t, gw+":0")
	fixture, _ := filepath.Abs(filepath.Join(repoRoot, "testdata", "fixtures", "fixture-server"))
	reg.PublishFixture(t, fixture, "mail-fixture", "1.0.0", "mail")
	reg.Use(t)
	cfgOld := "fail_on: high\nidle: {quiet: 500ms, min: 200ms}\nservers:\n  mail:\n    target: npm:mail-fixture\n    version: 1.0.0\n"
	baseline := hostBaseline(t, cfgOld)
	reg.PublishFixture(t, fixture, "mail-fixture", "1.0.1", "mail", "mail-bcc")
	regEnv := "NPM_CONFIG_REGISTRY=" + reg.URL // the workflow's env:, passed to the container

	t.Run("pull_request", func(t *testing.T) {
		ws := testenv.Repo(t, map[string]string{"mcp-audit.yml": cfgOld, "baselines/npm/mail-fixture/1.0.0.json": baseline},
			map[string]string{"mcp-audit.yml": strings.Replace(cfgOld, "1.0.0", "1.0.1", 1)})
		api := testenv.NewGitHubAt(t, e2eToken, gw+":0")
		// A hijack attempt: someone else's comment carrying this job's
		// marker, claiming all is clear. It must not be edited.
		hijack := testenv.Comment{ID: 1, Body: stickyMarker + "\n## mcp-audit: ✅ all clear", User: testenv.User{Login: "mallory"}}
		api.Comments[42] = []testenv.Comment{hijack}
		job := newJob(t, ws, "pull_request", api.URL, map[string]string{"sarif": "mcp-audit.sarif", "report-artifact": "mcp-audit-report"})
		job.run(ctx, image, regEnv)
		checkPullRequest(t, job, api, hijack)
	})
	t.Run("pull_request loosening the policy", func(t *testing.T) {
		// The PR changes no server, only the policy it is checked under:
		// it is judged by the base's, and the loosening fails the check.
		ws := testenv.Repo(t, map[string]string{"mcp-audit.yml": cfgOld, "baselines/npm/mail-fixture/1.0.0.json": baseline},
			map[string]string{"mcp-audit.yml": strings.Replace(cfgOld, "fail_on: high", "fail_on: none", 1)})
		api := testenv.NewGitHubAt(t, e2eToken, gw+":0")
		job := newJob(t, ws, "pull_request", api.URL, nil)
		job.run(ctx, image, regEnv)
		if job.exitCode != cli.ExitFindings || job.output("verdict") != "fail" {
			t.Errorf("exit %d, verdict %q: a loosened policy must fail the check\n%s", job.exitCode, job.output("verdict"), job.stdout)
		}
		if cs := api.CommentsOf(42); len(cs) != 1 || !strings.Contains(cs[0].Body, "loosens the policy") {
			t.Errorf("the comment does not show the loosening: %+v", cs)
		}
	})
	t.Run("schedule", func(t *testing.T) {
		cfg := strings.Replace(cfgOld, "version: 1.0.0", `range: "^1.0.0"`, 1)
		ws := testenv.Repo(t, map[string]string{"mcp-audit.yml": cfg, "baselines/npm/mail-fixture/1.0.0.json": baseline},
			map[string]string{"x": "y"})
		api := testenv.NewGitHubAt(t, e2eToken, gw+":0")
		job := newJob(t, ws, "schedule", api.URL, map[string]string{"update-baselines": "true"})
		job.run(ctx, image, regEnv)
		if job.exitCode != cli.ExitFindings {
			t.Errorf("exit %d, want %d (the new release has high findings)\n%s", job.exitCode, cli.ExitFindings, job.stdout)
		}
		if len(api.Pulls) != 1 || !strings.Contains(api.Pulls[0].Body, "mail-fixture) 1.0.0 → 1.0.1") {
			t.Fatalf("pulls %+v", api.Pulls)
		}
		if _, ok := api.Files["baselines/npm/mail-fixture/1.0.1.json"]; !ok || job.output("pull-request") == "" {
			t.Errorf("proposed files %d, pull-request output %q", len(api.Files), job.output("pull-request"))
		}
	})
}

// checkPullRequest asserts what a failing pull request leaves: one sticky
// comment, annotations on the server's line, outputs, the step summary,
// the report and SARIF in the workspace, and no token in the log.
func checkPullRequest(t *testing.T, job *runner, api *testenv.GitHub, hijack testenv.Comment) {
	t.Helper()
	if job.exitCode != cli.ExitFindings {
		t.Fatalf("exit %d, want %d\n%s", job.exitCode, cli.ExitFindings, job.stdout)
	}
	comments := api.CommentsOf(42)
	if len(comments) != 2 || comments[0] != hijack {
		t.Fatalf("the hijack comment was edited or removed: %+v", comments)
	}
	if c := comments[1].Body; !strings.HasPrefix(c, stickyMarker+"\n") || !strings.Contains(c, "mail-fixture) 1.0.0 → 1.0.1") ||
		!strings.Contains(c, "`mcp-audit-report` artifact of [this run](https://github.example/acme/tools/actions/runs/7)") {
		t.Errorf("sticky comment: %.3000s", c)
	}
	if !strings.Contains(job.stdout, "::error file=mcp-audit.yml,line=4,title=mcp-audit%3A mail high::") {
		t.Errorf("no annotation on the server's line:\n%s", job.stdout)
	}
	if !strings.HasPrefix(job.stdout, "::add-mask::"+e2eToken) || strings.Count(job.stdout, e2eToken) != 1 {
		t.Error("the token must be masked first and never printed")
	}
	for name, want := range map[string]string{"verdict": "fail", "high": "2", "report": ".mcp-audit/report.md", "sarif": "mcp-audit.sarif",
		"html-report": ".mcp-audit/report.html"} {
		if got := job.output(name); got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
	if s := job.file("_runner_file_commands/step_summary_1"); !strings.Contains(s, "gained a field") {
		t.Errorf("step summary:\n%.2000s", s)
	}
	if b, err := os.ReadFile(filepath.Join(job.ws, ".mcp-audit", "report.md")); err != nil || !bytes.Contains(b, []byte("gained a field")) {
		t.Errorf("report in the workspace: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(job.ws, "mcp-audit.sarif")); err != nil || !bytes.Contains(b, []byte(`"ruleId": "payload/`)) {
		t.Errorf("SARIF in the workspace: %v\n%.2000s", err, b)
	}
}

// hostBaseline records the reviewed baseline of the configuration's
// server, as a maintainer would have committed it.
func hostBaseline(t *testing.T, cfg string) string {
	t.Helper()
	tmp := t.TempDir()
	os.WriteFile(filepath.Join(tmp, "mcp-audit.yml"), []byte(cfg), 0o644)
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"baseline", "update", "--config", filepath.Join(tmp, "mcp-audit.yml")}, nil, &out, &errb, os.Getenv); code != 0 {
		t.Fatalf("baseline update: %d %s %s", code, out.String(), errb.String())
	}
	b, err := os.ReadFile(filepath.Join(tmp, "baselines", "npm", "mail-fixture", "1.0.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
