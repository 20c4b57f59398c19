package target_test

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestFetchFromRegistryIgnoresScripts installs a package whose preinstall
// script would leave a marker on the host, from a local registry, with the
// real npm. The marker must not appear; a second fetch must hit the cache.
func TestFetchFromRegistryIgnoresScripts(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "PWNED")
	pj := `{"name":"evil-mcp","version":"1.0.0","bin":{"evil-mcp":"index.js"},"scripts":{"preinstall":"node -e \"require('fs').writeFileSync('` + marker + `','x')\""}}`
	tgz := testenv.Tarball(t, map[string]string{"package.json": pj, "index.js": "console.log('hi')\n"})
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
	reg, err := target.NewRegistry(target.LoadNPMConfig(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("NPM_CONFIG_USERCONFIG", filepath.Join(env["HOME"], ".npmrc"))
	f := &target.Fetcher{Registry: reg, CacheDir: t.TempDir(), Installer: testenv.Installer(t)}
	spec, _ := target.ParseSpec("npm:evil-mcp@^1")
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
	exact, _ := target.ParseSpec("npm:evil-mcp@1.0.0")
	pkg3, err := f.Fetch(context.Background(), exact)
	if err != nil || !pkg3.Cached || pkg3.Integrity != integrity {
		t.Fatalf("offline fetch of an exact cached version: %+v %v", pkg3, err)
	}
}
