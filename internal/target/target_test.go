package target

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSpec(t *testing.T) {
	dir := t.TempDir()
	tgz := filepath.Join(dir, "x-1.0.0.tgz")
	os.WriteFile(tgz, nil, 0o644)
	for in, want := range map[string]Spec{
		"npm:@modelcontextprotocol/server-memory@latest": {Kind: KindNPM, Name: "@modelcontextprotocol/server-memory", Range: "latest"},
		"npm:@scope/pkg":          {Kind: KindNPM, Name: "@scope/pkg"},
		"npm:left-pad@^1.2.0":     {Kind: KindNPM, Name: "left-pad", Range: "^1.2.0"},
		"npm:postmark-mcp@1.0.15": {Kind: KindNPM, Name: "postmark-mcp", Range: "1.0.15"},
		dir:                       {Kind: KindDir, Path: dir},
		tgz:                       {Kind: KindTarball, Path: tgz},
	} {
		got, err := ParseSpec(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		got.Raw = ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in, diff)
		}
	}
	for _, bad := range []string{"npm:", "npm:Bad_Name", "npm:../x", "server-memory", "/no/such/dir", filepath.Join(dir) + "/x-1.0.0.tgzz"} {
		if _, err := ParseSpec(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: want ErrUsage, got %v", bad, err)
		}
	}
	if _, err := ParseSpec("server-memory"); err == nil || !strings.Contains(err.Error(), "npm:server-memory") {
		t.Errorf("bare name should suggest npm: prefix, got %v", err)
	}
}

func packument() *Packument {
	p := &Packument{Name: "x", DistTags: map[string]string{"latest": "1.2.0", "next": "2.0.0-rc.1"}, Versions: map[string]Version{}}
	for _, v := range []string{"1.0.0", "1.0.15", "1.0.16", "1.2.0", "2.0.0-rc.1", "0.9.0"} {
		p.Versions[v] = Version{Name: "x", Version: v}
	}
	return p
}

func TestResolve(t *testing.T) {
	p := packument()
	for rng, want := range map[string]string{
		"": "1.2.0", "latest": "1.2.0", "next": "2.0.0-rc.1", "1.0.15": "1.0.15", "~1.0.0": "1.0.16",
		"^1.0.0": "1.2.0", ">=2.0.0-rc.0": "2.0.0-rc.1", "<1.0.0": "0.9.0",
	} {
		v, err := p.Resolve(rng, false)
		if err != nil || v.Version != want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", rng, v, err, want)
		}
	}
	if _, err := p.Resolve("^3", false); !errors.Is(err, ErrUsage) {
		t.Errorf("unsatisfiable range: %v", err)
	}
	newer, err := p.Newer("1.0.15", "", false)
	if err != nil || !cmp.Equal(newer, []string{"1.0.16", "1.2.0"}) {
		t.Errorf("Newer = %v, %v", newer, err)
	}
	newer, _ = p.Newer("1.0.15", "", true)
	if !cmp.Equal(newer, []string{"1.0.16", "1.2.0", "2.0.0-rc.1"}) {
		t.Errorf("Newer with prereleases = %v", newer)
	}
	newer, _ = p.Newer("1.0.0", "~1.0.0", false)
	if !cmp.Equal(newer, []string{"1.0.15", "1.0.16"}) {
		t.Errorf("Newer in range = %v", newer)
	}
}

func TestLoadNPMConfig(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte(`; comment
registry=https://npm.corp.test/
@acme:registry=https://acme.test/npm
//acme.test/npm/:_authToken=${ACME_TOKEN}
cafile=/etc/corp-ca.pem
`), 0o600)
	env := map[string]string{"HOME": home, "ACME_TOKEN": "s3cret", "NODE_EXTRA_CA_CERTS": "/extra.pem"}
	c := LoadNPMConfig(func(k string) string { return env[k] })
	if c.Registry != "https://npm.corp.test/" || c.RegistryFor("@acme/tool") != "https://acme.test/npm/" || c.RegistryFor("@other/x") != "https://npm.corp.test/" {
		t.Errorf("registries: %+v", c)
	}
	if tok := c.token("https://acme.test/npm/@acme%2ftool"); tok != "s3cret" {
		t.Errorf("token = %q", tok)
	}
	if !cmp.Equal(c.CAFiles, []string{"/etc/corp-ca.pem", "/extra.pem"}) {
		t.Errorf("CA files %v", c.CAFiles)
	}
	env["NPM_CONFIG_REGISTRY"] = "http://127.0.0.1:4873"
	if c := LoadNPMConfig(func(k string) string { return env[k] }); c.Registry != "http://127.0.0.1:4873/" {
		t.Errorf("env override: %s", c.Registry)
	}
}

func TestEntry(t *testing.T) {
	for _, tc := range []struct {
		pj, want, bin string
	}{
		{`{"name":"@s/server-memory","bin":{"mcp-server-memory":"dist/index.js"}}`, "dist/index.js", ""},
		{`{"name":"tool","bin":"./cli.js"}`, "cli.js", ""},
		{`{"name":"@s/x","bin":{"x":"a.js","x-admin":"b.js"}}`, "a.js", ""},
		{`{"name":"multi","bin":{"foo":"a.js","foo-mcp":"b.js"}}`, "b.js", ""},
		{`{"name":"multi","bin":{"foo":"a.js","bar":"b.js"}}`, "a.js", "foo"},
		{`{"name":"m","main":"lib/main.js"}`, "lib/main.js", ""},
		{`{"name":"m"}`, "index.js", ""},
		{`{"name":"m","bin":"../../../etc/passwd"}`, "etc/passwd", ""},
	} {
		var m PackageJSON
		json.Unmarshal([]byte(tc.pj), &m)
		got, err := m.Entry(tc.bin)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.pj, got, err, tc.want)
		}
	}
	var m PackageJSON
	json.Unmarshal([]byte(`{"name":"multi","bin":{"foo":"a.js","bar":"b.js"}}`), &m)
	if _, err := m.Entry(""); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "bar, foo") {
		t.Errorf("ambiguous bins: %v", err)
	}
}

func makeTgz(t *testing.T, files map[string]string, extra ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	for _, h := range extra {
		tw.WriteHeader(h)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestExtractTarballRejectsEscapes(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "out")
	data := makeTgz(t, map[string]string{"index.js": "1"},
		&tar.Header{Name: "package/link", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink})
	if err := extractTarball(bytes.NewReader(data), dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "link")); !os.IsNotExist(err) {
		t.Error("symlink entries must not be extracted")
	}
	evil := makeTgz(t, nil, &tar.Header{Name: "package/../../evil", Size: 1, Mode: 0o644, Typeflag: tar.TypeReg})
	// path.Clean keeps "../" inside the root here; it must land inside dst.
	dst2 := filepath.Join(t.TempDir(), "out")
	extractTarball(bytes.NewReader(evil), dst2)
	if _, err := os.Stat(filepath.Join(filepath.Dir(dst2), "evil")); err == nil {
		t.Error("entry escaped the destination")
	}
}

func TestFetchDir(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "package.json"), []byte(`{"name":"fixture-server","version":"0.1.0","bin":"server.js"}`), 0o644)
	os.WriteFile(filepath.Join(src, "server.js"), []byte("//"), 0o755)
	os.WriteFile(filepath.Join(src, ".npmrc"), []byte("git=/tmp/evil"), 0o644)
	f := &Fetcher{CacheDir: t.TempDir()}
	pkg, err := f.Fetch(context.Background(), Spec{Kind: KindDir, Path: src})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Cleanup()
	root := filepath.Join(pkg.Root, pkg.Dir)
	if _, err := os.Stat(filepath.Join(root, "server.js")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".npmrc")); err == nil {
		t.Error(".npmrc must not be copied")
	}
	if e, _ := pkg.Manifest.Entry(""); e != "server.js" || pkg.Name != "fixture-server" {
		t.Errorf("entry %q name %q", e, pkg.Name)
	}
	again, err := f.Fetch(context.Background(), Spec{Kind: KindDir, Path: src})
	if err != nil || !again.Cached {
		t.Errorf("second fetch of unchanged dir not cached: %v", err)
	}
	os.WriteFile(filepath.Join(src, "server.js"), []byte("// changed"), 0o755)
	changed, _ := f.Fetch(context.Background(), Spec{Kind: KindDir, Path: src})
	if changed.Cached || changed.Integrity == pkg.Integrity {
		t.Error("a changed directory must not hit the cache")
	}
}
