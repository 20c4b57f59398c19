package deptree

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// stored checks a string the tree stores from package data: valid UTF-8,
// no control or format characters, within its bound.
func stored(t *testing.T, what, s string, max int) {
	t.Helper()
	if !utf8.ValidString(s) || len(s) > max {
		t.Fatalf("%s %q: invalid or longer than %d", what, s, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("%s %q holds %U", what, s, r)
		}
	}
}

func FuzzPackageJSON(f *testing.F) {
	f.Add([]byte(`{"name":"server-x","version":"1.0.0","bin":{"a":"./a.js","../../b":"../../c"},"scripts":{"postinstall":"node x"},"dependencies":{"a":"^1"}}`))
	f.Add([]byte(`{"name":"@s/x","bin":"cli.js","optionalDependencies":{"b":5},"peerDependencies":[],"gypfile":false,"directories":{"bin":"bin"}}`))
	f.Add([]byte("\xef\xbb\xbf{\"name\":\"\\u202e\\u0000x\",\"scripts\":{\"install\":\"\\u001b[2J\"}}"))
	f.Add([]byte(`{"name":1,"scripts":"x","bin":null,"dependencies":{"":"1"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePackageJSON(b)
		if err != nil {
			return
		}
		q, _ := parsePackageJSON(b)
		if !reflect.DeepEqual(p, q) {
			t.Fatal("two parses differ")
		}
		stored(t, "name", p.name, maxName)
		stored(t, "version", p.version, maxVersion)
		if len(p.bins) > MaxBins || len(p.requires) > MaxRequires {
			t.Fatalf("%d bins, %d requires past the bounds", len(p.bins), len(p.requires))
		}
		for _, s := range p.scripts {
			stored(t, "script", s.Command, MaxScriptText)
		}
		for _, bin := range p.bins {
			stored(t, "bin", bin.Name, maxName)
			if bin.Name == "" || strings.Contains(bin.Name, "/") || bin.Name == ".." || strings.HasPrefix(bin.Target, "../") {
				t.Fatalf("bin %+v escapes", bin)
			}
		}
		for _, r := range p.requires {
			stored(t, "require", r.Name, maxName)
			stored(t, "range", r.Range, 256)
		}
	})
}

func FuzzLock(f *testing.F) {
	f.Add([]byte(`{"lockfileVersion":3,"packages":{"":{"name":"x"},"node_modules/a":{"version":"1.0.0","resolved":"http://192.0.2.1/a.tgz","integrity":"sha512-x","hasInstallScript":true,"bin":{"a":"a.js"}},"node_modules/b":{"name":"real","link":true}}}`))
	f.Add([]byte(`{"packages":{"node_modules/a":"x","node_modules/b":{"version":5,"hasInstallScript":"yes"}}}`))
	f.Add([]byte(`{"lockfileVersion":1,"dependencies":{"a":{"version":"1"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseLock(b)
		if err != nil {
			return
		}
		for k, e := range m {
			if k == "" {
				t.Fatal("the project's own entry became a package")
			}
			stored(t, "name", e.Name, maxName)
			stored(t, "version", e.Version, maxVersion)
			stored(t, "integrity", e.Integrity, 1024)
			if len(e.Bins) > MaxBins {
				t.Fatalf("%d bins", len(e.Bins))
			}
		}
	})
}

func FuzzMetadata(f *testing.F) {
	f.Add([]byte("Metadata-Version: 2.1\nName: mcp-server-x\nVersion: 1.2.0\n\nName: body\n"))
	f.Add([]byte("Name:\r\n  continued\r\nVersion: \x1b[31m1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, version := parseMetadata(b)
		stored(t, "name", name, maxName)
		stored(t, "version", version, maxVersion)
		_ = NormalizePyName(name)
	})
}

func FuzzRecord(f *testing.F) {
	f.Add([]byte("a/__init__.py,sha256=AAAA,10\n\"a,b.py\",sha256=B,2\n../../../bin/x,sha256=C,3\na-1.dist-info/RECORD,,\n"))
	f.Add([]byte("\"unterminated,\n,,\n\n\x00,\x00\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec := parseRecord(b)
		d1, d2 := recordDigest(rec), recordDigest(parseRecord(b))
		if d1 != d2 {
			t.Fatal("digest not deterministic")
		}
		if d1 != "" && (!strings.HasPrefix(d1, "sha256:") || len(d1) != len("sha256:")+64) {
			t.Fatalf("digest %q", d1)
		}
		for _, n := range recordBins(rec) {
			stored(t, "bin", n, maxName)
			if strings.Contains(n, "/") {
				t.Fatalf("bin %q holds a slash", n)
			}
		}
	})
}

func FuzzEntryPoints(f *testing.F) {
	f.Add([]byte("[console_scripts]\nmcp-server-x = mcp_server_x:main\n[gui_scripts]\ng=x:y\n[other]\nz=a:b\n"))
	f.Add([]byte("[console_scripts\n  = \n=x\n\tcont = x:y\n[console_scripts]\n\x1b=\u202e\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		eps := parseEntryPoints(b)
		for i, e := range eps {
			if e.Group != "console_scripts" && e.Group != "gui_scripts" || e.Name == "" || e.Target == "" {
				t.Fatalf("entry point %+v", e)
			}
			stored(t, "name", e.Name, maxName)
			stored(t, "target", e.Target, 512)
			if i > 0 && eps[i-1].Group == e.Group && eps[i-1].Name == e.Name {
				t.Fatalf("duplicate %+v", e)
			}
		}
	})
}

func FuzzPth(f *testing.F) {
	f.Add([]byte("import os; exec('x')\n/some/path\n# import no\n"))
	f.Add([]byte("# c\fimport os\r\nimport\tsys\r \x85import x\xff"))
	f.Add([]byte("\xef\xbb\xbfimport a\u2028import b\u2029import c\x1cimport d"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, n := pthLines(b)
		if len(lines) > MaxHookLines || n < len(lines) {
			t.Fatalf("%d lines kept of %d", len(lines), n)
		}
		for _, l := range lines {
			stored(t, "line", l, MaxHookLineText)
			if !strings.HasPrefix(l, "import") {
				t.Fatalf("line %q kept as executable", l)
			}
		}
		// Every line site.py of 3.12 executes (split at \n and \r only) is
		// found too.
		old := 0
		for _, l := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "import\t") {
				old++
			}
		}
		if n < old {
			t.Fatalf("%d executable lines, 3.12 executes %d", n, old)
		}
	})
}

// FuzzReadNPM: whatever a package.json and a lockfile hold, the tree reads
// without error, is canonical (canonicalizing again changes nothing) and
// encodes.
func FuzzReadNPM(f *testing.F) {
	f.Add([]byte(`{"name":"a","version":"1.0.0","scripts":{"postinstall":"x"}}`), []byte(`{"packages":{"node_modules/a":{"version":"1.0.0","integrity":"sha512-x"}}}`))
	f.Add([]byte(`{`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, pj, lock []byte) {
		dir := t.TempDir()
		write(t, dir, "node_modules/a/package.json", string(pj))
		write(t, dir, "node_modules/a/node_modules/b/package.json", string(pj))
		write(t, dir, "node_modules/.package-lock.json", string(lock))
		tree, err := ReadNPM(dir, ReadOptions{Resolved: func(s string) string { return s }})
		if err != nil {
			t.Fatal(err)
		}
		before, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		tree.Canonicalize()
		after, _ := json.Marshal(tree)
		if string(before) != string(after) {
			t.Fatal("ReadNPM's tree is not canonical")
		}
		for _, p := range tree.NPM {
			stored(t, "resolved", p.Resolved, maxPath)
		}
	})
}
