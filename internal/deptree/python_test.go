package deptree

import (
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadPythonGolden(t *testing.T) {
	dir := unpack(t, "py-basic")
	// txtar cannot hold a form feed in a readable fixture: the hidden line
	// is written here.
	write(t, dir, "hidden.pth", "# just paths\fimport os; os.system(\"id\")\n  import indented-is-a-path\n")
	tree, err := ReadPython(dir)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trees/py-basic.json", encode(t, tree))
}

// TestReadPythonHooks: which entries are hooks, and which run code.
func TestReadPythonHooks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.pth", "/some/path\n# import os\n\n")
	write(t, dir, "b.pth", "import\tsys\n")
	write(t, dir, "c.pth", "\ufeffimport os\n")
	write(t, dir, "usercustomize.cpython-312-x86_64-linux-gnu.so", "\x7fELF")
	write(t, dir, "sitecustomize.txt", "import os")
	write(t, dir, "pkg/nested.pth", "import os")
	write(t, dir, "sitecustomize/README", "no __init__")
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "d.pth")); err != nil {
		t.Fatal(err)
	}
	tree, err := ReadPython(dir)
	if err != nil {
		t.Fatal(err)
	}
	type hook struct {
		Path string
		Exec bool
		N    int
	}
	var got []hook
	for _, h := range tree.Hooks {
		got = append(got, hook{h.Path, h.Exec, h.ExecLines})
	}
	want := []hook{{"a.pth", false, 0}, {"b.pth", true, 1}, {"c.pth", true, 1}, {"usercustomize.cpython-312-x86_64-linux-gnu.so", true, 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hooks (-want +got):\n%s", d)
	}
}

func TestPthLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"path only", "/usr/lib/x\n./rel\n", 0},
		{"import space", "import os\n", 1},
		{"import tab", "import\tos\n", 1},
		{"comment", "#import os\n", 0},
		{"indented is a path", " import os\n", 0},
		{"importlib is a path", "importlib\n", 0},
		{"crlf", "x\r\nimport os\r\n", 1},
		{"bare cr", "x\rimport os", 1},
		{"form feed in a comment", "# c\fimport os", 1},
		{"vertical tab", "# c\vimport os", 1},
		{"file separator", "# c\x1cimport os", 1},
		{"next line", "# c\u0085import os", 1},
		{"line separator", "# c\u2028import os", 1},
		{"paragraph separator", "# c\u2029import os", 1},
		{"latin-1 next line", "# c\x85import os \xff", 1},
		{"utf-8 continuation byte 0x85 is no break", "# \u00c5import os", 0},
		{"bom", "\ufeffimport os", 1},
		{"several", "import a\nimport b\n# import c\nimport d", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, n := pthLines([]byte(tc.in)); n != tc.want {
				t.Errorf("pthLines(%q) = %d executable lines, want %d", tc.in, n, tc.want)
			}
		})
	}
}

// TestRecordDigest: what pip writes per install does not move the
// digest; a changed file of the wheel does.
func TestRecordDigest(t *testing.T) {
	base := "pkg/a.py,sha256=AAA,1\npkg-1.0.dist-info/METADATA,sha256=BBB,2\n"
	d := recordDigest(parseRecord([]byte(base)))
	if d == "" {
		t.Fatal("no digest")
	}
	install := "pkg-1.0.dist-info/INSTALLER,sha256=x,4\npkg-1.0.dist-info/RECORD,,\n" +
		"pkg-1.0.dist-info/direct_url.json,sha256=y,9\npkg/__pycache__/a.cpython-312.pyc,sha256=z,5\n../../../bin/pkg,sha256=w,9\n"
	if got := recordDigest(parseRecord([]byte(install + base))); got != d {
		t.Errorf("per-install files moved the digest: %s vs %s", got, d)
	}
	if got := recordDigest(parseRecord([]byte(`pkg/a.py,sha256=CHANGED,1` + "\npkg-1.0.dist-info/METADATA,sha256=BBB,2\n"))); got == d {
		t.Error("a changed file kept the digest")
	}
	if got := recordDigest(parseRecord([]byte(`"pkg/a,b.py",sha256=Q,1` + "\n"))); got == "" {
		t.Error("a quoted path with a comma was not read")
	}
}

// TestRecordMismatch: a hook whose content matches its owner's RECORD is
// no mismatch; one that does not is.
func TestRecordMismatch(t *testing.T) {
	const pth = "import os\n"
	sum := sha256.Sum256([]byte(pth))
	good := base64.RawURLEncoding.EncodeToString(sum[:])
	for _, tc := range []struct {
		hash string
		want bool
	}{{"sha256=" + good, false}, {"sha256=" + good[1:] + "A", true}, {"md5=whatever", false}} {
		dir := t.TempDir()
		write(t, dir, "x.pth", pth)
		write(t, dir, "x-1.0.dist-info/METADATA", "Name: x\nVersion: 1.0\n")
		write(t, dir, "x-1.0.dist-info/RECORD", "x.pth,"+tc.hash+",10\n")
		tree, err := ReadPython(dir)
		if err != nil {
			t.Fatal(err)
		}
		if h := tree.Hooks[0]; h.RecordMismatch != tc.want || h.Owner != "x" {
			t.Errorf("RECORD %s: mismatch %v owner %q, want %v, x", tc.hash, h.RecordMismatch, h.Owner, tc.want)
		}
	}
}
