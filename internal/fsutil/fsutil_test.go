package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	os.MkdirAll(filepath.Join(src, "lib", "skip"), 0o755)
	os.WriteFile(filepath.Join(src, "lib", "a.js"), []byte("a"), 0o444)
	os.WriteFile(filepath.Join(src, "lib", "skip", "b.js"), []byte("b"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(src, "link"))
	err := CopyTree(src, dst, func(rel string, d fs.DirEntry) bool { return d.Name() == "skip" })
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "lib", "a.js")); err != nil || string(b) != "a" {
		t.Errorf("a.js: %q %v", b, err)
	}
	if st, _ := os.Stat(filepath.Join(dst, "lib", "a.js")); st == nil || st.Mode().Perm()&0o200 == 0 {
		t.Error("copied files must stay writable by their owner")
	}
	if _, err := os.Stat(filepath.Join(dst, "lib", "skip")); !os.IsNotExist(err) {
		t.Error("a skipped directory was copied")
	}
	if l, err := os.Readlink(filepath.Join(dst, "link")); err != nil || l != "/etc/passwd" {
		t.Errorf("symlink copied as %q %v, want the link itself", l, err)
	}
}
