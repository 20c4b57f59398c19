package codecov

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

const cov = `{"result":[
 {"url":"file:///srv/mcp/node_modules/srv/dist/index.js","functions":[
   {"functionName":"","ranges":[{"count":1}]},
   {"functionName":"main","ranges":[{"count":1}]},
   {"functionName":"unused","ranges":[{"count":0}]},
   {"functionName":"tool","ranges":[{"count":3}]}]},
 {"url":"file:///srv/mcp/node_modules/srv/node_modules/dep/index.js","functions":[
   {"functionName":"","ranges":[{"count":1}]},{"functionName":"x","ranges":[{"count":1}]}]},
 {"url":"node:internal/modules/cjs/loader","functions":[{"functionName":"x","ranges":[{"count":9}]}]},
 {"url":"file:///srv/mcp/node_modules/srv/../../../etc/x.js","functions":[{"functionName":"","ranges":[{"count":1}]},{"functionName":"y","ranges":[{"count":1}]}]}
]}`

// TestMeasure: the package's own loaded files count their functions (the
// module function apart); dependencies, node's internals and paths that
// leave the package do not; a file never loaded counts as not run, its
// functions estimated.
func TestMeasure(t *testing.T) {
	own := []Source{{Path: "dist/index.js"}, {Path: "dist/never.js", Text: []byte("function a(){}\nconst b = () => 1; // function c\n'function d'")}}
	got := Measure([][]byte{[]byte(cov), []byte("not json")}, "/srv/mcp/node_modules/srv", own)
	want := &m.CodeCoverage{Functions: 5, Ran: 2, Estimated: 2, Files: 2, FilesLoaded: 1}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("coverage (-want +got):\n%s", d)
	}
	if Measure(nil, "/srv/mcp", own) != nil || Measure([][]byte{[]byte("{")}, "/srv/mcp", own) != nil {
		t.Error("no coverage read is not measured, not 0%")
	}
}

func TestEstimateFunctions(t *testing.T) {
	for src, want := range map[string]int{
		"function a() {} async function b() {}":     2,
		"const f = (x) => x * 2; const g = y => y;": 2,
		"// function a\n/* function b => */ x = 1":  0,
		"s = 'function' + \"=>\" + `function ${x}`": 0,
		"functional(); myfunction(); function_x()":  0,
	} {
		if got := EstimateFunctions([]byte(src)); got != want {
			t.Errorf("%q: %d, want %d", src, got, want)
		}
	}
}

func FuzzMeasure(f *testing.F) {
	f.Add([]byte(cov), []byte("function a() { return () => 1 }"))
	f.Fuzz(func(t *testing.T, data, src []byte) {
		c := Measure([][]byte{data}, "/srv/mcp/node_modules/srv", []Source{{Path: "a.js", Text: src}})
		if c != nil && (c.Ran > c.Functions || c.FilesLoaded > c.Files) {
			t.Fatalf("inconsistent %+v", c)
		}
	})
}

// TestSources: the package's own files, not its node_modules, and no
// link out of its tree.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "dist"), 0o755)
	os.MkdirAll(filepath.Join(dir, "node_modules", "dep"), 0o755)
	os.WriteFile(filepath.Join(dir, "dist", "a.js"), []byte("function a(){}"), 0o644)
	os.WriteFile(filepath.Join(dir, "node_modules", "dep", "b.js"), []byte("function b(){}"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.js")
	os.WriteFile(outside, []byte("function s(){}"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "dist", "link.js"))
	got := Sources(dir)
	if len(got) != 1 || got[0].Path != "dist/a.js" || string(got[0].Text) != "function a(){}" {
		t.Errorf("sources %+v", got)
	}
}
