package deptree

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gateURL maps the gate's per-install address back to a registry path, as
// the caller's ReadOptions.Resolved does.
func gateURL(u string) string {
	if i := strings.Index(u, "/r0/"); i >= 0 {
		return "registry.example/" + u[i+len("/r0/"):]
	}
	return ""
}

func TestReadNPMGolden(t *testing.T) {
	dir := unpack(t, "npm-basic")
	tree, err := ReadNPM(dir, ReadOptions{Resolved: gateURL})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trees/npm-basic.json", encode(t, tree))
}

// TestReadNPMDeterministic: the same tree read twice, and a copy made in
// another order, encode to the same bytes; without ReadOptions.Resolved
// the gate's per-install URLs are left out.
func TestReadNPMDeterministic(t *testing.T) {
	a, err := ReadNPM(unpack(t, "npm-basic"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadNPM(unpack(t, "npm-basic"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(encode(t, a)), string(encode(t, b))); d != "" {
		t.Fatalf("two reads differ:\n%s", d)
	}
	if strings.Contains(string(encode(t, a)), "192.0.2.10") {
		t.Error("a gate URL reached the tree without a Resolved rewrite")
	}
	shuffled := *a
	shuffled.NPM = append([]NPMPackage(nil), a.NPM...)
	for i, j := 0, len(shuffled.NPM)-1; i < j; i, j = i+1, j-1 {
		shuffled.NPM[i], shuffled.NPM[j] = shuffled.NPM[j], shuffled.NPM[i]
	}
	shuffled.Canonicalize()
	if d := cmp.Diff(string(encode(t, a)), string(encode(t, &shuffled))); d != "" {
		t.Fatalf("canonical order depends on input order:\n%s", d)
	}
}

// TestReadNPMLinks: a link in node_modules is recorded, never followed,
// also when it points out of the tree; a package.json that is a link or a
// FIFO is not read (a FIFO would block the reader).
func TestReadNPMLinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "package.json", `{"name":"outside","version":"1.0.0","scripts":{"postinstall":"x"}}`)
	write(t, dir, "node_modules/real/package.json", `{"name":"real","version":"1.0.0"}`)
	if err := os.Symlink(outside, filepath.Join(dir, "node_modules", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "node_modules", "inside")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "node_modules", "linkedjson"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "package.json"), filepath.Join(dir, "node_modules", "linkedjson", "package.json")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "node_modules", "fifo"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "node_modules", "fifo", "package.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A nested node_modules that links back up would loop; a bin directory
	// behind a link would read outside the package.
	if err := os.Symlink("../..", filepath.Join(dir, "node_modules", "real", "node_modules")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "node_modules/bins/package.json", `{"name":"bins","directories":{"bin":"via/bin"}}`)
	write(t, dir, "node_modules/real/bin/x", "x")
	if err := os.Symlink("../real", filepath.Join(dir, "node_modules", "bins", "via")); err != nil {
		t.Fatal(err)
	}
	tree, err := ReadNPM(dir, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []NPMPackage{
		{Path: "node_modules/bins", Name: "bins", NotInLock: true},
		{Path: "node_modules/escape", Name: "escape", Link: true, NotInLock: true},
		{Path: "node_modules/fifo", Name: "fifo", NotInLock: true, Problem: "package.json: not a regular file"},
		{Path: "node_modules/inside", Name: "inside", Link: true, NotInLock: true},
		{Path: "node_modules/linkedjson", Name: "linkedjson", NotInLock: true, Problem: "package.json: not a regular file"},
		{Path: "node_modules/real", Name: "real", Version: "1.0.0", NotInLock: true},
	}
	if d := cmp.Diff(want, tree.NPM); d != "" {
		t.Errorf("packages (-want +got):\n%s", d)
	}
}

// TestReadNPMBounds: past the package, depth and size bounds the reader
// counts what it left out; below them the tree is complete.
func TestReadNPMBounds(t *testing.T) {
	old := limits
	t.Cleanup(func() { limits = old })
	limits.packages, limits.depth = 3, 2
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		write(t, dir, "node_modules/"+n+"/package.json", `{"name":"`+n+`","version":"1.0.0"}`)
	}
	write(t, dir, "node_modules/a/node_modules/x/node_modules/y/package.json", `{"name":"y"}`)
	write(t, dir, "node_modules/b/package.json", `{"name":"b","description":"`+strings.Repeat("x", MaxManifest)+`"}`)
	tree, err := ReadNPM(dir, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Omission{{What: OmitDepth, Count: 1}, {What: OmitPackages, Count: 3}, {What: OmitTooLarge, Count: 1}}
	if d := cmp.Diff(want, tree.Omitted); d != "" {
		t.Errorf("omitted (-want +got):\n%s", d)
	}
	if tree.Complete() {
		t.Error("a tree past its bounds reports complete")
	}
	limits = old
	if tree, _ := ReadNPM(dir, ReadOptions{}); !tree.Complete() && len(tree.Omitted) != 1 {
		t.Errorf("below the bounds only the oversized package.json is left out, got %+v", tree.Omitted)
	}
}
