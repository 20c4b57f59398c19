package check

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// pyIndex serves Py.Fixture's releases on a local simple index: 1.9.0 and
// 1.10.0 (text order would put them the other way round), a pre-release
// 1.11.0rc1, an sdist-only 1.2.0, a platform-only 1.12.0 (not installable
// as a target) and a yanked-free history for the rest.
func pyIndex(t *testing.T) *target.Fetcher {
	idx := testenv.NewPyIndex(t)
	for _, f := range []string{
		"Py.Fixture-1.0.0-py3-none-any.whl", "py_fixture-1.0.0.tar.gz",
		"py_fixture-1.2.0.tar.gz",
		"py_fixture-1.9.0-py3-none-any.whl",
		"py_fixture-1.10.0-py3-none-any.whl",
		"py_fixture-1.11.0rc1-py3-none-any.whl",
		"py_fixture-1.12.0-cp312-cp312-manylinux_2_17_x86_64.whl",
	} {
		idx.Add("py-fixture", f, []byte(f))
	}
	return &target.Fetcher{PyPI: target.LoadPyPIConfig(func(string) string { return "" }, idx.URL)}
}

const pyServers = `servers:
  py:
    target: pypi:Py.Fixture
  py-ranged:
    target: pypi:py-fixture@~=1.2
  py-pre:
    target: pypi:py-fixture
    prerelease: true
`

// TestPyCandidates: versions come from the simple index in PEP 440 order;
// pre-releases only with prerelease; platform-only versions are skipped;
// without a baseline the newest is pinned with ==.
func TestPyCandidates(t *testing.T) {
	cfg := loadConfig(t, pyServers)
	c := newChecker(cfg, auditDeps(pyIndex(t)), Options{NewReleases: true})
	got := func(server, base string) []candidate {
		t.Helper()
		cands, err := c.candidates(context.Background(), cfg.Server(server), base)
		if err != nil {
			t.Fatal(err)
		}
		return cands
	}
	tests := []struct {
		server, base string
		want         []candidate
	}{
		{"py", "", []candidate{{spec: "pypi:Py.Fixture@==1.10.0", version: "1.10.0"}}},
		{"py", "1.2.0", []candidate{{spec: "pypi:Py.Fixture@==1.9.0", version: "1.9.0"}, {spec: "pypi:Py.Fixture@==1.10.0", version: "1.10.0"}}},
		{"py", "1.10.0", nil},
		{"py-ranged", "1.0.0", []candidate{{spec: "pypi:py-fixture@==1.2.0", version: "1.2.0"}, {spec: "pypi:py-fixture@==1.9.0", version: "1.9.0"},
			{spec: "pypi:py-fixture@==1.10.0", version: "1.10.0"}}},
		{"py-pre", "1.10.0", []candidate{{spec: "pypi:py-fixture@==1.11.0rc1", version: "1.11.0rc1"}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, got(tc.server, tc.base), cmp.AllowUnexported(candidate{})); diff != "" {
			t.Errorf("%s after %q (-want +got):\n%s", tc.server, tc.base, diff)
		}
	}
	c.opts.NewReleases = false // a plain check audits the newest only
	if diff := cmp.Diff([]candidate{{spec: "pypi:Py.Fixture@==1.10.0", version: "1.10.0"}}, got("py", "1.0.0"), cmp.AllowUnexported(candidate{})); diff != "" {
		t.Errorf("check without --new-releases (-want +got):\n%s", diff)
	}
}

// TestDiscoverPyPI: discover lists the PyPI releases newer than the
// baseline, read from the baseline directory under the normalized name.
func TestDiscoverPyPI(t *testing.T) {
	cfg := loadConfig(t, pyServers)
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "pypi", Name: "py-fixture", Version: "1.9.0"}}
	if _, err := baseline.Write(cfg.BaselineDir(), man); err != nil {
		t.Fatal(err)
	}
	man.Target.Version = "1.2.0"
	if _, err := baseline.Write(cfg.BaselineDir(), man); err != nil {
		t.Fatal(err)
	}
	got, err := Discover(context.Background(), registry, pyIndex(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{
		{Server: "py", Package: "Py.Fixture", Version: "1.10.0", Baseline: "1.9.0"},
		{Server: "py-pre", Package: "py-fixture", Version: "1.10.0", Baseline: "1.9.0"},
		{Server: "py-pre", Package: "py-fixture", Version: "1.11.0rc1", Baseline: "1.9.0"},
		{Server: "py-ranged", Package: "py-fixture", Version: "1.10.0", Baseline: "1.9.0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}

func auditDeps(f *target.Fetcher) audit.Deps { return audit.Deps{Fetcher: f} }
