package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	name := filepath.Join(t.TempDir(), "sub", "dir", "report.md")
	for _, body := range []string{"first\n", "second\n"} {
		if err := WriteFileAtomic(name, []byte(body)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != body {
			t.Fatalf("read %q, %v; want %q", got, err, body)
		}
	}
	st, err := os.Stat(name)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(name), ".mcp-audit-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteIntoAFileFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if err := WriteFileAtomic(filepath.Join(file, "x"), []byte("x")); err == nil {
		t.Error("writing below a regular file must fail")
	}
}
