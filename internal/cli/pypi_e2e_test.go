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

	"github.com/mcp-audit/mcp-audit/internal/batch"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

var pyFixture, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "py-fixture-server"))

// pyRun runs the CLI with PIP_INDEX_URL pointing at idx; code 2 or 3 fails
// the test.
func pyRun(t *testing.T, idx *testenv.PyIndex, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	getenv := func(k string) string {
		if k == "PIP_INDEX_URL" {
			return idx.URL
		}
		return os.Getenv(k)
	}
	code := Run(ctx, args, nil, &out, &errb, getenv)
	if code == ExitUsage || code == ExitRuntime {
		t.Fatalf("mcp-audit %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String(), code
}

// TestPyPICheckNewReleases: a pypi: server with a baseline at 1.0.0;
// 1.1.0 appears on the index with a rug pull (a canary sent over HTTPS at
// startup and instructions in its tool description) and 1.2.0rc1 after
// it. discover lists 1.1.0 only (no pre-releases), check --new-releases
// audits it and fails with the diff against 1.0.0. The control is a
// server pinned at ==1.0.0: its check passes without changes.
func TestPyPICheckNewReleases(t *testing.T) {
	testenv.Image(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	idx := testenv.NewPyIndex(t)
	for _, fx := range []testenv.PyFixture{
		{Dir: pyFixture},
		{Dir: pyFixture, Version: "1.1.0", DefaultModes: `["post-https", "rug-pull"]`},
		{Dir: pyFixture, Version: "1.2.0rc1", DefaultModes: `["post-https", "rug-pull"]`},
	} {
		name, b := fx.Wheel(t)
		idx.Add("py-fixture-server", name, b)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "mcp-audit.yml")
	os.WriteFile(cfgPath, []byte(`fail_on: high
idle: {quiet: 500ms, min: 200ms}
servers:
  py:
    target: pypi:py-fixture-server
    canary_env: [OPENAI_API_KEY]
  py-pinned:
    target: pypi:py-fixture-server@==1.0.0
    canary_env: [OPENAI_API_KEY]
`), 0o644)
	out, code := pyRun(t, idx, "baseline", "update", "--config", cfgPath, "--server", "py", "--version", "1.0.0")
	if code != 0 || !strings.Contains(out, filepath.Join("pypi", "py-fixture-server", "1.0.0.json")) {
		t.Fatalf("baseline update: %d %s", code, out)
	}
	if out, _ = pyRun(t, idx, "discover", "--config", cfgPath); out != "py\tpy-fixture-server\t1.1.0\tbaseline 1.0.0\n" {
		t.Errorf("discover:\n%s", out)
	}
	rep := filepath.Join(dir, "report.json")
	if _, code = pyRun(t, idx, "check", "--config", cfgPath, "--server", "py", "--new-releases", "--format", "json", "-o", rep); code != ExitFindings {
		t.Errorf("check exit %d, want %d (the rug pull fails the policy)", code, ExitFindings)
	}
	got := checkFindings(t, rep)
	if len(got) != 1 || !strings.Contains(got[0], "1.0.0 -> 1.1.0") || !strings.Contains(got[0], "tool echo") ||
		!strings.Contains(got[0], "hooks.fixture.example") {
		t.Errorf("check report: %q", got)
	}
	if _, code = pyRun(t, idx, "check", "--config", cfgPath, "--server", "py-pinned", "--format", "json", "-o", rep); code != ExitOK {
		t.Errorf("control: check exit %d, want 0", code)
	}
	if got := checkFindings(t, rep); len(got) != 1 || got[0] != "py-pinned 1.0.0 -> 1.0.0 pass:" {
		t.Errorf("control: %q", got)
	}
}

// checkFindings reads a check's JSON report as one line per report:
// "SERVER OLD -> NEW VERDICT: finding | finding".
func checkFindings(t *testing.T, file string) []string {
	t.Helper()
	data, _ := os.ReadFile(file)
	var rep struct {
		Reports []report.DiffReport `json:"reports"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rep.Reports {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Server, r.Error)
		}
		line := r.Server + " " + r.Result.Old.Version + " -> " + r.Result.New.Version + " " + r.Result.Verdict + ":"
		for _, f := range r.Result.Findings {
			line += " " + f.Severity.String() + " " + f.Kind + " " + f.Subject + " |"
		}
		out = append(out, line)
	}
	return out
}

// TestBatchNPMAndPyPI: one batch list with an npm fixture and a Python
// fixture given as an MCP registry server.json (registryType pypi, a
// secret environment variable): both are audited and recorded, each with
// its ecosystem, version, manifest and the canary it touched.
func TestBatchNPMAndPyPI(t *testing.T) {
	testenv.Image(t)
	testenv.SinkBinary(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg := testenv.NewRegistry(t)
	reg.PublishFixture(t, fixture, "batch-npm", "1.0.0", "read-credentials")
	reg.Use(t)
	idx := testenv.NewPyIndex(t)
	name, b := testenv.PyFixture{Dir: pyFixture, Version: "1.1.0", DefaultModes: `["post-https"]`}.Wheel(t)
	idx.Add("py-fixture-server", name, b)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"name": "io.example/py-fixture", "version": "1.1.0",
  "packages": [{"registryType": "pypi", "identifier": "py-fixture-server", "version": "1.1.0",
    "environmentVariables": [{"name": "OPENAI_API_KEY", "isSecret": true}]}]}`), 0o644)
	list := filepath.Join(dir, "servers.yml")
	os.WriteFile(list, []byte(`idle: {quiet: 500ms, min: 200ms, max: 5s}
servers:
  npm-one:
    target: npm:batch-npm
  py-one:
    server_json: server.json
`), 0o644)
	res := filepath.Join(dir, "out")
	if out, code := pyRun(t, idx, "batch", "--list", list, "--out", res, "--jobs", "1"); code != ExitOK {
		t.Fatalf("batch: exit %d\n%s", code, out)
	}
	recs, err := batch.Records(res)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		var hits []string
		if data, err := os.ReadFile(filepath.Join(res, r.Manifest)); err == nil {
			if man, err := m.Decode(data); err == nil {
				for _, h := range man.PhaseByName(m.PhaseStartup).Canaries {
					hits = append(hits, h.Canary+" "+h.How)
				}
			}
		}
		got[r.Server] = strings.Join([]string{r.Status, r.Outcome, r.Verdict, r.Target, r.Ecosystem, r.Name, r.Version, r.Manifest,
			strings.Join(hits, ",")}, " ")
	}
	// The npm fixture reads planted credentials (fail); the Python one
	// sends its own declared key to its own service domain (recorded, but
	// a server's use of its credential is no finding: pass).
	want := map[string]string{
		"npm-one": batch.StatusDone + " " + m.StatusOK + " fail npm:batch-npm@1.0.0 npm batch-npm 1.0.0 manifests/npm/batch-npm/1.0.0.json file:~/",
		"py-one": batch.StatusDone + " " + m.StatusOK + " pass pypi:py-fixture-server@==1.1.0 pypi py-fixture-server 1.1.0 " +
			"manifests/pypi/py-fixture-server/1.1.0.json env:OPENAI_API_KEY sent",
	}
	for k, w := range want {
		if !strings.HasPrefix(got[k], w) {
			t.Errorf("%s record:\n  got  %q\n  want %q…", k, got[k], w)
		}
	}
}
