package audit_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

var rugdepHelperDir = filepath.Join("..", "..", "testdata", "fixtures", "rugdep-helper")

// registryDeps are deps whose fetcher installs from reg, into a cache of
// the test's own.
func registryDeps(t *testing.T, reg *testenv.Registry) audit.Deps {
	t.Helper()
	d := deps(t)
	env := map[string]string{}
	for _, kv := range reg.Env(t) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	r, err := target.NewRegistry(target.LoadNPMConfig(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	f := *d.Fetcher
	f.Registry, f.CacheDir = r, t.TempDir()
	d.Fetcher = &f
	return d
}

func runSupply(t *testing.T, d audit.Deps, tgt string) *m.Manifest {
	t.Helper()
	o := audit.Options{Target: tgt}
	o.Timing.IdleQuiet, o.Timing.IdleMin = time.Second, 500*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res, err := audit.Run(ctx, d, harnessOptions(o))
	if err != nil {
		t.Fatalf("%s: %v", tgt, err)
	}
	return res.Manifest
}

func readFixture(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func kinds(fs []policy.Finding, of ...string) []string {
	var out []string
	for _, f := range fs {
		if slices.Contains(of, f.Kind) {
			out = append(out, f.Severity.String()+" "+f.Kind+" "+f.Subject)
		}
	}
	slices.Sort(out)
	return out
}

// TestDependencyDropperRugPull is the axios 1.14.1 incident through the
// real sandbox: rugdep-server 1.0.1 adds rugdep-helper, whose postinstall
// writes a payload to /tmp, runs it, deletes it and itself, and renames
// a clean package.json over its own. Its manifest records the helper with
// its install script (the tree is read before any script ran); the
// install phase is judged from the trace (a dropped payload run and
// deleted, a replaced package.json, a shipped file deleted), whatever is
// left on disk; the advisory the local registry publishes for the helper
// reached it through the install gate; and the comparison with 1.0.0
// fails on the new dependency. The control is rugdep-clean, the same
// release without the dependency: nothing of the kind, and it passes.
func TestDependencyDropperRugPull(t *testing.T) {
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg.Publish(t, readFixture(t, rugdepHelperDir))
	reg.Advise("rugdep-helper", 1131, "embedded remote-access tool", "critical", "<1.0.1")
	for _, name := range []string{"rugdep-server", "rugdep-clean"} {
		reg.PublishFixture(t, fixture, name, "1.0.0", "mail")
	}
	reg.PublishFixtureDeps(t, fixture, "rugdep-server", "1.0.1", map[string]string{"rugdep-helper": "^1.0.0"}, "mail")
	reg.PublishFixture(t, fixture, "rugdep-clean", "1.0.1", "mail")
	published := time.Date(2026, 3, 31, 0, 21, 0, 0, time.UTC)
	reg.SetPublished("rugdep-server", "1.0.1", published)
	d := registryDeps(t, reg)
	pol := policy.Policy{FailOn: policy.High}
	for _, tc := range []struct {
		name string
		bad  bool
	}{{"rugdep-server", true}, {"rugdep-clean", false}} {
		t.Run(tc.name, func(t *testing.T) {
			old := runSupply(t, d, "npm:"+tc.name+"@1.0.0")
			man := runSupply(t, d, "npm:"+tc.name+"@1.0.1")
			r := diff.Compare(old, man, pol)
			got := kinds(r.Findings, policy.KindDependency, policy.KindErased, policy.KindAdvisory)
			var want []string
			if tc.bad {
				want = []string{"high dependency rugdep-helper",
					"high erased-traces dropped_run_deleted /tmp/.rugdep-*",
					"high erased-traces replaced_manifest <deps>/rugdep-helper/package.md",
					"medium advisory rugdep-helper advisory 1131",
					"medium erased-traces deleted_existing_file <deps>/rugdep-helper/setup.js"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n  got  %q\n  want %q", got, want)
			}
			if want := map[bool]string{true: m.VerdictFail, false: m.VerdictPass}[tc.bad]; r.Verdict != want || man.Outcome.Status != m.StatusOK {
				t.Errorf("verdict %s (want %s), outcome %+v; findings %+v", r.Verdict, want, man.Outcome, r.Findings)
			}
			helper := false
			for _, p := range man.Dependencies.NPM {
				helper = helper || p.Name == "rugdep-helper" && p.InstallScript && len(p.Scripts) == 1 && p.Scripts[0].Command == "node setup.js"
			}
			if helper != tc.bad {
				t.Errorf("the tree records the helper with its install script: %v, want %v (%+v)", helper, tc.bad, man.Dependencies.NPM)
			}
			if tc.bad && man.Target.Published != published.Format(time.RFC3339) {
				t.Errorf("published %q, want %s", man.Target.Published, published.Format(time.RFC3339))
			}
		})
	}
	asked := false
	for _, q := range reg.AdvisoryQueries() {
		asked = asked || slices.Equal(q["rugdep-helper"], []string{"1.0.0"})
	}
	if !asked {
		t.Errorf("the registry was never asked about rugdep-helper: %v", reg.AdvisoryQueries())
	}
}

// TestStartupHookRugPull is the litellm 1.82.7 incident through the real
// sandbox: version 1.1.0 of the Python fixture's wheel ships a .pth whose
// line site.py executes at every interpreter start. Its audit lists the
// hook (low), and the comparison with 1.0.0 is high and fails. The
// control is 1.2.0, whose .pth holds only a path: a change, no finding,
// and it passes.
func TestStartupHookRugPull(t *testing.T) {
	idx := testenv.NewPyIndex(t)
	add := func(version string, extra map[string]string) {
		name, b := testenv.PyFixture{Dir: pyFixtureDir, Version: version}.Wheel(t)
		idx.Add("py-fixture-server", name, withWheelFiles(t, b, extra))
	}
	add("1.0.0", nil)
	add("1.1.0", map[string]string{"py_fixture_server_init.pth": "import base64;exec(base64.b64decode('cGFzcw=='))\n"})
	add("1.2.0", map[string]string{"py_fixture_server_paths.pth": "py_fixture_server/vendor\n"})
	d := pyDeps(t, idx)
	old := runSupply(t, d, "pypi:py-fixture-server@==1.0.0")
	pol := policy.Policy{FailOn: policy.High}
	bad := runSupply(t, d, "pypi:py-fixture-server@==1.1.0")
	if got := kinds(policy.Evaluate(bad, pol), policy.KindStartupHook); !slices.Equal(got, []string{"low startup-hook py_fixture_server_init.pth"}) {
		t.Errorf("the audit of 1.1.0 lists %q", got)
	}
	r := diff.Compare(old, bad, pol)
	if got := kinds(r.Findings, policy.KindStartupHook); !slices.Equal(got, []string{"high startup-hook py_fixture_server_init.pth"}) || r.Verdict != m.VerdictFail {
		t.Errorf("1.0.0 → 1.1.0: verdict %s, findings %q", r.Verdict, got)
	}
	ctl := diff.Compare(old, runSupply(t, d, "pypi:py-fixture-server@==1.2.0"), pol)
	hooks := 0
	for _, c := range ctl.Changes {
		if c.Area == m.AreaDependency && c.Field == "startup-hook" {
			hooks++
		}
	}
	if got := kinds(ctl.Findings, policy.KindStartupHook); len(got) != 0 || ctl.Verdict != m.VerdictPass || hooks != 1 {
		t.Errorf("1.0.0 → 1.2.0: verdict %s, findings %q, hook changes %d", ctl.Verdict, got, hooks)
	}
}

// withWheelFiles adds top-level files to a wheel, listed with their
// hashes in its RECORD, as a build backend would put them.
func withWheelFiles(t *testing.T, whl []byte, extra map[string]string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(whl), int64(len(whl)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.HasSuffix(f.Name, ".dist-info/RECORD") {
			for name, body := range extra {
				sum := sha256.Sum256([]byte(body))
				b = append(b, fmt.Sprintf("%s,sha256=%s,%d\n", name, base64.RawURLEncoding.EncodeToString(sum[:]), len(body))...)
			}
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified})
		w.Write(b)
	}
	for name, body := range extra {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Unix(1700000000, 0)})
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestNewTreeWithoutRelease: rugdep-ranged 1.0.0 depends on rugdep-lib
// ^1.0.0 and is the baseline. While nothing new is published, check
// resolves the baseline's version again, finds the same tree and audits
// nothing (the control). Then rugdep-lib 1.0.1 is published, adding
// rugdep-helper: with no release of the server, check's fresh install of
// 1.0.0 resolves the new tree; an hour old, it is too new, naming the
// package; with --min-release-age 0 it is audited as a candidate of its
// own and fails on the new dependency with an install script.
func TestNewTreeWithoutRelease(t *testing.T) {
	reg := testenv.NewRegistry(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	lib := func(version string, deps string) map[string]string {
		return map[string]string{"index.js": "module.exports = {};\n",
			"package.json": `{"name":"rugdep-lib","version":"` + version + `","main":"index.js","license":"MIT"` + deps + `}`}
	}
	reg.Publish(t, lib("1.0.0", ""))
	reg.PublishFixtureDeps(t, fixture, "rugdep-ranged", "1.0.0", map[string]string{"rugdep-lib": "^1.0.0"}, "mail")
	d := registryDeps(t, reg)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "mcp-audit.yml")
	os.WriteFile(cfgPath, []byte("fail_on: high\nidle: {quiet: 1s, min: 500ms}\nservers:\n  ranged:\n    target: npm:rugdep-ranged\n    version: 1.0.0\n"), 0o644)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := baseline.Write(cfg.BaselineDir(), runSupply(t, d, "npm:rugdep-ranged@1.0.0")); err != nil {
		t.Fatal(err)
	}
	zero := time.Duration(0)
	run := func(age *time.Duration) report.DiffReport {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		reports, err := check.Run(ctx, d, cfg, check.Options{MinReleaseAge: age, Base: harnessOptions(audit.Options{})})
		if err != nil || len(reports) != 1 || reports[0].Error != "" {
			t.Fatalf("check: %v %+v", err, reports)
		}
		return reports[0]
	}
	if r := run(nil); len(r.Notes) != 0 || len(r.Result.Findings) != 0 || r.Result.Verdict != m.VerdictPass {
		t.Errorf("the same tree: notes %q, verdict %s (%q), findings %+v", r.Notes, r.Result.Verdict, r.Result.Incomplete, r.Result.Findings)
	}
	reg.Publish(t, readFixture(t, rugdepHelperDir))
	reg.Publish(t, lib("1.0.1", `,"dependencies":{"rugdep-helper":"^1.0.0"}`))
	reg.SetPublished("rugdep-lib", "1.0.1", time.Now().Add(-time.Hour))
	if r := run(nil); r.TooNew == nil || r.TooNew.Dependency != "rugdep-lib@1.0.1" || r.Result.Verdict != m.VerdictIncomplete {
		t.Errorf("a tree an hour old: too-new %+v, verdict %s", r.TooNew, r.Result.Verdict)
	}
	r := run(&zero)
	if got := kinds(r.Result.Findings, policy.KindDependency); !slices.Equal(got, []string{"high dependency rugdep-helper"}) || r.Result.Verdict != m.VerdictFail {
		t.Errorf("the new tree: verdict %s, findings %q", r.Result.Verdict, got)
	}
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[len(r.Notes)-1], "resolves differently now") {
		t.Errorf("notes %q", r.Notes)
	}
}
