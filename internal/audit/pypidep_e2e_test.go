package audit_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

var pyDepDir = filepath.Join("..", "..", "testdata", "fixtures", "py-fixture-dep")

// gateUA is the User-Agent the PyPI gate sends upstream: a request with it
// came from pip in the install container, through the gate.
const gateUA = "mcp-audit (pip install in container)"

// depIndex publishes py-fixture-dep 1.0.0 and a py-fixture-server wheel
// requiring it (req) on a fresh local index.
func depIndex(t *testing.T, req string) (*testenv.PyIndex, testenv.PyFixture) {
	idx := testenv.NewPyIndex(t)
	name, b := testenv.PyFixture{Dir: pyDepDir}.Wheel(t)
	idx.Add("py-fixture-dep", name, b)
	srv := testenv.PyFixture{Dir: pyFixtureDir, Requires: []string{req}}
	name, b = srv.Wheel(t)
	idx.Add("py-fixture-server", name, b)
	return idx, srv
}

func toolNames(man *m.Manifest) []string {
	var out []string
	for _, tl := range man.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// TestPyPIDependencyThroughGate: a server that depends on py-fixture-dep
// gets it installed by pip in the install container, which reaches the
// local index only through the PyPI gate: the index sees the dependency's
// wheel asked for with the gate's User-Agent, and the server (use-dep)
// lists the tool the dependency provides. As a wheel (pypi: target) and as
// an sdist (the dependency downloaded for the install phase's build). The
// control is the same server without use-dep: no greet tool.
func TestPyPIDependencyThroughGate(t *testing.T) {
	t.Parallel()
	idx, srv := depIndex(t, "py-fixture-dep>=1.0")
	sd, sb := srv.Sdist(t)
	sdist := filepath.Join(t.TempDir(), sd)
	os.WriteFile(sdist, sb, 0o644)
	d := pyDeps(t, idx)
	// A cache of its own: an install cached by an earlier run of the
	// suite would not ask the index for the dependency again.
	f := *d.Fetcher
	f.CacheDir = t.TempDir()
	d.Fetcher = &f
	depFile := "/files/py_fixture_dep-1.0.0-py3-none-any.whl"
	for _, tgt := range []string{"pypi:py-fixture-server@==1.0.0", sdist} {
		before := len(idx.Requests())
		res, err := runPy(t, d, audit.Options{Target: tgt, Args: []string{"use-dep"}})
		if err != nil {
			t.Fatalf("%s: %v", tgt, err)
		}
		man := res.Manifest
		if man.Outcome.Status != m.StatusOK || !slices.Contains(toolNames(man), "greet") {
			t.Errorf("%s: outcome %+v, tools %v; stderr %q", tgt, man.Outcome, toolNames(man), man.Run.StderrTail)
		}
		if got := idx.Requests()[before:]; !slices.Contains(got, gateUA+" "+depFile) {
			t.Errorf("%s: the dependency was not fetched through the gate: %q", tgt, got)
		}
	}
	ctl, err := runPy(t, d, audit.Options{Target: "pypi:py-fixture-server@==1.0.0"})
	if err != nil || slices.Contains(toolNames(ctl.Manifest), "greet") {
		t.Errorf("control: %v, tools %v", err, toolNames(ctl.Manifest))
	}
}

// TestPyPIDependencyElsewhereRefused: the dependency's file, linked by its
// index page under the index's own origin, redirects to a host no index
// page named. The gate does not follow it: the other host is never asked,
// and the audit fails naming the redirect (pip gets a refusal, not the
// file). The control is TestPyPIDependencyThroughGate's fetch.
func TestPyPIDependencyElsewhereRefused(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer elsewhere.Close()
	idx, _ := depIndex(t, "py-fixture-dep==1.0.0")
	idx.Redirect("py_fixture_dep-1.0.0-py3-none-any.whl", elsewhere.URL+"/py_fixture_dep-1.0.0-py3-none-any.whl")
	_, err := runPy(t, pyDeps(t, idx), audit.Options{Target: "pypi:py-fixture-server@==1.0.0", Args: []string{"use-dep"}})
	if err == nil || !strings.Contains(err.Error(), "redirect to "+elsewhere.URL) {
		t.Errorf("want the install refused naming the redirect to %s, got %v", elsewhere.URL, err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the host no index page named was asked %d time(s)", n)
	}
}
