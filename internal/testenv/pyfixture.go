package testenv

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// PyFixture describes one version of a Python fixture
// (testdata/fixtures/py-fixture-server, or py-fixture-dep, the library it
// can depend on) to package. Packaging is only zipping and tarring its
// files: nothing of it runs on the host.
type PyFixture struct {
	Dir     string // the fixture's source directory
	Version string // replaces 1.0.0
	// DefaultModes replaces the module's DEFAULT_MODES (a Python list
	// literal such as `["post-https"]`); "" keeps it.
	DefaultModes string
	// Requires are dependencies (PEP 508, e.g. "py-fixture-dep>=1.0"),
	// declared in the metadata and in pyproject.toml.
	Requires []string
}

const pyServerName = "py-fixture-server"

// name is the project name: the directory's, py-fixture-server or
// py-fixture-dep.
func (p PyFixture) name() string {
	if filepath.Base(p.Dir) == "py-fixture-dep" {
		return "py-fixture-dep"
	}
	return pyServerName
}

// module is the import name (and the file name prefix).
func (p PyFixture) module() string { return strings.ReplaceAll(p.name(), "-", "_") }

// Files returns the fixture's files (path -> content) for this version.
func (p PyFixture) Files(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "__pycache__") {
			return err
		}
		rel, _ := filepath.Rel(p.Dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		if p.Version != "" {
			s = strings.ReplaceAll(s, `version = "1.0.0"`, `version = "`+p.Version+`"`)
			s = strings.ReplaceAll(s, `VERSION = "1.0.0"`, `VERSION = "`+p.Version+`"`)
		}
		if p.DefaultModes != "" {
			s = strings.Replace(s, "DEFAULT_MODES = []", "DEFAULT_MODES = "+p.DefaultModes, 1)
		}
		if len(p.Requires) > 0 {
			s = strings.Replace(s, "dependencies = []", `dependencies = ["`+strings.Join(p.Requires, `", "`)+`"]`, 1)
		}
		out[filepath.ToSlash(rel)] = []byte(s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (p PyFixture) version() string {
	if p.Version == "" {
		return "1.0.0"
	}
	return p.Version
}

func (p PyFixture) metadata(header string) string {
	var req strings.Builder
	for _, r := range p.Requires {
		req.WriteString("\nRequires-Dist: " + r)
	}
	return header + "\nName: " + p.name() + "\nVersion: " + p.version() + req.String() +
		"\nSummary: mcp-audit's Python fixture\nProject-URL: Homepage, https://fixture.example/" + p.name() + "\n\n"
}

// Wheel builds MODULE-VERSION-py3-none-any.whl (the server's with its
// console script).
func (p PyFixture) Wheel(t testing.TB) (string, []byte) {
	t.Helper()
	files := p.Files(t)
	info := p.module() + "-" + p.version() + ".dist-info/"
	entries := map[string][]byte{
		info + "METADATA": []byte(p.metadata("Metadata-Version: 2.1")),
		info + "WHEEL":    []byte("Wheel-Version: 1.0\nGenerator: mcp-audit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
	}
	if p.name() == pyServerName {
		entries[info+"entry_points.txt"] = []byte("[console_scripts]\npy-fixture-server = py_fixture_server:main\n")
	}
	for rel, b := range files {
		if strings.HasPrefix(rel, p.module()+"/") {
			entries[rel] = b
		}
	}
	var record strings.Builder
	names := sortedNames(entries)
	for _, n := range names {
		fmt.Fprintf(&record, "%s,,\n", n)
	}
	fmt.Fprintf(&record, "%sRECORD,,\n", info)
	entries[info+"RECORD"] = []byte(record.String())
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range sortedNames(entries) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Unix(1700000000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(entries[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return p.module() + "-" + p.version() + "-py3-none-any.whl", buf.Bytes()
}

// Sdist builds MODULE-VERSION.tar.gz (PKG-INFO, pyproject.toml
// and the package under one top directory).
func (p PyFixture) Sdist(t testing.TB) (string, []byte) {
	t.Helper()
	entries := p.Files(t)
	entries["PKG-INFO"] = []byte(p.metadata("Metadata-Version: 2.1"))
	top := p.module() + "-" + p.version()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range sortedNames(entries) {
		b := entries[n]
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + n, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(1700000000, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return top + ".tar.gz", buf.Bytes()
}

// WriteDir writes the fixture's files as a project directory under dir.
func (p PyFixture) WriteDir(t testing.TB, dir string) {
	t.Helper()
	for rel, b := range p.Files(t) {
		f := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
