package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestSdistScriptsSkipRefused: --scripts skip on an sdist or a Python
// source directory is a usage error naming the flag, decided before
// anything is fetched (an sdist is installed only by running its build
// code); a wheel with --scripts skip (the control) is not refused by it.
func TestSdistScriptsSkipRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fx := testenv.PyFixture{Dir: filepath.Join("..", "..", "testdata", "fixtures", "py-fixture-server")}
	sd, sb := fx.Sdist(t)
	whl, wb := fx.Wheel(t)
	os.WriteFile(filepath.Join(dir, sd), sb, 0o644)
	os.WriteFile(filepath.Join(dir, whl), wb, 0o644)
	fx.WriteDir(t, filepath.Join(dir, "project"))
	for _, tgt := range []string{filepath.Join(dir, sd), filepath.Join(dir, "project")} {
		_, err := Prepare(context.Background(), Deps{}, Options{Target: tgt, Scripts: ScriptsSkip})
		if !errors.Is(err, target.ErrUsage) || !strings.Contains(err.Error(), "--scripts skip") {
			t.Errorf("%s: err %v, want a usage error naming --scripts skip", tgt, err)
		}
	}
	if err := sdistScripts(Options{Target: whl, Scripts: ScriptsSkip}, target.Spec{Kind: target.KindWheel}.Ecosystem(), nil); err != nil {
		t.Errorf("wheel: %v", err)
	}
	built := &target.Package{Python: &target.PyDist{Build: "src/sdist.tar.gz"}}
	if err := sdistScripts(Options{Target: "pypi:x", Scripts: ScriptsSkip}, target.Spec{Kind: target.KindPyPI}.Ecosystem(), built); !errors.Is(err, target.ErrUsage) {
		t.Errorf("pypi resolved to an sdist: %v", err)
	}
	if err := sdistScripts(Options{Target: "pypi:x", Scripts: ScriptsSkip}, target.Spec{Kind: target.KindPyPI}.Ecosystem(), &target.Package{Python: &target.PyDist{}}); err != nil {
		t.Errorf("pypi resolved to a wheel: %v", err)
	}
	if err := sdistScripts(Options{Target: "pypi:x", Scripts: ScriptsAuto}, target.Spec{Kind: target.KindPyPI}.Ecosystem(), built); err != nil {
		t.Errorf("auto: %v", err)
	}
}
