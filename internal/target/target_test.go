package target

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
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

// TestFetchFromRegistryIgnoresScripts installs a package whose preinstall
// script would leave a marker on the host, from a local registry, with the
// real npm. The marker must not appear; a second fetch must hit the cache.
func TestFetchFromRegistryIgnoresScripts(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not installed")
	}
	marker := filepath.Join(t.TempDir(), "PWNED")
	pj := `{"name":"evil-mcp","version":"1.0.0","bin":{"evil-mcp":"index.js"},"scripts":{"preinstall":"node -e \"require('fs').writeFileSync('` + marker + `','x')\""}}`
	tgz := makeTgz(t, map[string]string{"package.json": pj, "index.js": "console.log('hi')\n"})
	sum := sha512.Sum512(tgz)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	hits := 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch r.URL.Path {
		case "/evil-mcp":
			json.NewEncoder(w).Encode(map[string]any{
				"name": "evil-mcp", "dist-tags": map[string]string{"latest": "1.0.0"},
				"versions": map[string]any{"1.0.0": map[string]any{"name": "evil-mcp", "version": "1.0.0",
					"bin": map[string]string{"evil-mcp": "index.js"}, "hasInstallScript": true,
					"dist": map[string]string{"tarball": srv.URL + "/evil-mcp/-/evil-mcp-1.0.0.tgz", "integrity": integrity}}},
			})
		case "/evil-mcp/-/evil-mcp-1.0.0.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := map[string]string{"NPM_CONFIG_REGISTRY": srv.URL, "HOME": t.TempDir()}
	reg, err := NewRegistry(LoadNPMConfig(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("NPM_CONFIG_USERCONFIG", filepath.Join(env["HOME"], ".npmrc"))
	f := &Fetcher{Registry: reg, CacheDir: t.TempDir()}
	spec, _ := ParseSpec("npm:evil-mcp@^1")
	pkg, err := f.Fetch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("preinstall script ran on the host")
	}
	if pkg.Version != "1.0.0" || pkg.Integrity != integrity || pkg.Cached || !pkg.Manifest.HasInstallScripts() {
		t.Errorf("package %+v", pkg)
	}
	if _, err := os.Stat(filepath.Join(pkg.Root, pkg.Dir, "index.js")); err != nil {
		t.Error(err)
	}
	before := hits
	pkg2, err := f.Fetch(context.Background(), spec)
	if err != nil || !pkg2.Cached || pkg2.Root != pkg.Root {
		t.Fatalf("second fetch: %+v %v", pkg2, err)
	}
	if hits != before+1 {
		t.Errorf("cached fetch made %d requests; want only the metadata lookup", hits-before)
	}
	// An exact version that was installed before needs no network at all.
	srv.Close()
	exact, _ := ParseSpec("npm:evil-mcp@1.0.0")
	pkg3, err := f.Fetch(context.Background(), exact)
	if err != nil || !pkg3.Cached || pkg3.Integrity != integrity {
		t.Fatalf("offline fetch of an exact cached version: %+v %v", pkg3, err)
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
