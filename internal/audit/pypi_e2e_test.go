package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

var pyFixtureDir = filepath.Join("..", "..", "testdata", "fixtures", "py-fixture-server")

// pyDeps are deps whose fetcher reads the test's simple index.
func pyDeps(t *testing.T, idx *testenv.PyIndex) audit.Deps {
	d := deps(t)
	f := *d.Fetcher
	if idx != nil {
		f.PyPI = target.LoadPyPIConfig(func(string) string { return "" }, idx.URL)
	}
	d.Fetcher = &f
	return d
}

// pyTargets writes the fixture as a wheel, an sdist and a directory.
func pyTargets(t *testing.T, fx testenv.PyFixture) map[string]string {
	dir := t.TempDir()
	whl, wb := fx.Wheel(t)
	sd, sb := fx.Sdist(t)
	os.WriteFile(filepath.Join(dir, whl), wb, 0o644)
	os.WriteFile(filepath.Join(dir, sd), sb, 0o644)
	fx.WriteDir(t, filepath.Join(dir, "project"))
	return map[string]string{"wheel": filepath.Join(dir, whl), "sdist": filepath.Join(dir, sd), "dir": filepath.Join(dir, "project")}
}

// TestPyPIFixtureTargets audits the Python fixture as a wheel, an sdist and
// a source directory: each reads the decoys at startup and sends a canary
// over HTTPS to a *.example host (which proves Python trusts the sinkhole's
// CA), and the same server without those modes (the control) shows
// neither.
func TestPyPIFixtureTargets(t *testing.T) {
	t.Parallel()
	targets := pyTargets(t, testenv.PyFixture{Dir: pyFixtureDir})
	for _, kind := range []string{"wheel", "sdist", "dir"} {
		t.Run(kind, func(t *testing.T) {
			o := audit.Options{Target: targets[kind], CanaryEnv: []string{"OPENAI_API_KEY"}, Calls: audit.CallsNone,
				Args: []string{"read-credentials", "post-https"}}
			res, err := runPy(t, pyDeps(t, nil), o)
			if err != nil {
				t.Fatal(err)
			}
			man := res.Manifest
			if man.Outcome.Status != m.StatusOK {
				t.Fatalf("outcome %+v; stderr %q; notes %v", man.Outcome, man.Run.StderrTail, man.Run.Notes)
			}
			if man.Target.Name != "py-fixture-server" || man.Target.Version != "1.0.0" || len(man.Tools) != 1 {
				t.Errorf("target %+v, tools %+v", man.Target, man.Tools)
			}
			if want := []string{audit.PythonBin, "<pkg>/bin/py-fixture-server", "read-credentials", "post-https"}; !slices.Equal(man.Target.Entry, want) {
				t.Errorf("entry %q, want %q", man.Target.Entry, want)
			}
			st := man.PhaseByName(m.PhaseStartup)
			hits := canaryHits(st)
			for _, key := range []string{"file:~/.aws/credentials file-read", "file:~/.ssh/id_rsa file-read"} {
				if !hasHitPrefix(hits, key) {
					t.Errorf("no canary hit %q: %v", key, keys(hits))
				}
			}
			if !hasHitPrefix(hits, "env:OPENAI_API_KEY sent https POST hooks.fixture.example/collect") {
				t.Errorf("no canary in the https request: %v", keys(hits))
			}
			var conn bool
			for _, c := range st.Network {
				conn = conn || c.Name == "hooks.fixture.example" && c.Port == 443 && c.TLS == "intercepted" &&
					strings.Contains(c.Process, "<pkg>/bin/py-fixture-server")
			}
			if !conn {
				t.Errorf("no intercepted connection to hooks.fixture.example from the server: %+v", st.Network)
			}
			if !hasFinding(findings(man), policy.KindCanary, policy.Critical, "file:~/.ssh/id_rsa") {
				t.Errorf("no critical canary finding")
			}
			if in := man.PhaseByName(m.PhaseInstall); (kind == "wheel") != (in == nil) {
				t.Errorf("%s: install phase %v (an sdist or directory is built there, a wheel is not)", kind, in != nil)
			} else if in != nil && len(in.Processes) == 0 {
				t.Errorf("install phase traced no processes")
			}

			o.Args = nil // the control: the same server, doing neither
			ctl, err := runPy(t, pyDeps(t, nil), o)
			if err != nil {
				t.Fatal(err)
			}
			cst := ctl.Manifest.PhaseByName(m.PhaseStartup)
			if ctl.Manifest.Outcome.Status != m.StatusOK || len(cst.Canaries) != 0 || len(cst.Network) != 0 {
				t.Errorf("control: outcome %+v, canaries %v, network %+v", ctl.Manifest.Outcome, cst.Canaries, cst.Network)
			}
			for _, f := range findings(ctl.Manifest) {
				if f.Severity >= policy.High {
					t.Errorf("control: finding %+v", f)
				}
			}
		})
	}
}

func hasHitPrefix(hits map[string]m.CanaryHit, prefix string) bool {
	for k := range hits {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func runPy(t *testing.T, d audit.Deps, o audit.Options) (*audit.Result, error) {
	t.Helper()
	o.Timing.IdleQuiet, o.Timing.IdleMin = time.Second, 500*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return audit.Run(ctx, d, harnessOptions(o))
}

// TestPyPIRugPull publishes two versions of the fixture to a local simple
// index: 1.0.0 is clean, 1.1.0 sends a canary at startup and gains
// instructions in its tool description. Resolving pypi:NAME@~=1.0 picks
// 1.1.0, and the diff against 1.0.0 shows the rug pull; 1.0.0 against
// itself (the control) shows nothing.
func TestPyPIRugPull(t *testing.T) {
	t.Parallel()
	idx := testenv.NewPyIndex(t)
	idx.HTMLOnly = true // the host resolves from PEP 503 HTML too
	v1 := testenv.PyFixture{Dir: pyFixtureDir}
	v2 := testenv.PyFixture{Dir: pyFixtureDir, Version: "1.1.0", DefaultModes: `["post-https", "rug-pull"]`}
	for _, fx := range []testenv.PyFixture{v1, v2} {
		name, b := fx.Wheel(t)
		idx.Add("py-fixture-server", name, b)
	}
	sd, sb := v1.Sdist(t)
	idx.Add("py-fixture-server", sd, sb)
	d := pyDeps(t, idx)
	audit1 := func(spec string) *m.Manifest {
		res, err := runPy(t, d, audit.Options{Target: spec, CanaryEnv: []string{"OPENAI_API_KEY"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Manifest.Outcome.Status != m.StatusOK {
			t.Fatalf("%s: outcome %+v; stderr %q", spec, res.Manifest.Outcome, res.Manifest.Run.StderrTail)
		}
		return res.Manifest
	}
	old := audit1("pypi:py-fixture-server@==1.0.0")
	cur := audit1("pypi:py-fixture-server@~=1.0")
	if old.Target.Ecosystem != "pypi" || old.Target.Version != "1.0.0" || cur.Target.Version != "1.1.0" {
		t.Fatalf("targets %+v %+v", old.Target, cur.Target)
	}
	r := diff.Compare(old, cur, policy.Policy{FailOn: policy.High})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Severity.String()+" "+f.Kind+" "+f.Subject)
	}
	for _, want := range []string{"tool echo", "hooks.fixture.example"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no finding about %q: %v", want, got)
		}
	}
	if r.Verdict != "fail" {
		t.Errorf("verdict %s: %v", r.Verdict, got)
	}
	if same := diff.Compare(old, old, policy.Policy{FailOn: policy.High}); len(same.Findings) != 0 || same.Verdict != "pass" {
		t.Errorf("control: %+v", same.Findings)
	}
}
