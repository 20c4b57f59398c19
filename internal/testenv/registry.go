package testenv

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// Registry is a small npm registry on loopback: packuments, tarballs, and
// `npm publish`. Tests publish fixture packages with the real npm client
// and audit them with the real install path, with no traffic leaving the
// machine.
type Registry struct {
	URL  string
	srv  *httptest.Server
	mu   sync.Mutex
	pkgs map[string]map[string]json.RawMessage // name -> version -> version document
	tgz  map[string][]byte                     // "name/-/file.tgz" -> bytes
	// advisories and queries serve the bulk advisory endpoint
	// (advisories.go); times the full documents' time field.
	advisories map[string][]json.RawMessage
	queries    []map[string][]string
	times      map[string]map[string]string
}

// NewRegistry starts a registry on loopback; it stops when the test ends.
func NewRegistry(t testing.TB) *Registry { return NewRegistryAt(t, "127.0.0.1:0") }

// NewRegistryAt starts a registry listening on addr (a container engine's
// bridge address, for tests that run mcp-audit inside a container).
func NewRegistryAt(t testing.TB, addr string) *Registry {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("registry listener: %v", err)
	}
	r := &Registry{pkgs: map[string]map[string]json.RawMessage{}, tgz: map[string][]byte{}}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.Listener.Close()
	r.srv.Listener = ln
	r.srv.Start()
	r.URL = r.srv.URL + "/"
	t.Cleanup(r.srv.Close)
	return r
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	p, _ := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Method == http.MethodPost && "/"+p == bulkAdvisoryPath {
		r.serveBulk(w, req)
		return
	}
	if i := strings.Index(p, "/-/"); i > 0 && req.Method == http.MethodGet {
		b, ok := r.tgz[p]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(b)
		return
	}
	switch req.Method {
	case http.MethodGet:
		vs, ok := r.pkgs[p]
		if !ok {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		latest := ""
		var all []*semver.Version
		for v := range vs {
			if sv, err := semver.NewVersion(v); err == nil && sv.Prerelease() == "" {
				all = append(all, sv)
			}
		}
		sort.Sort(semver.Collection(all))
		if len(all) > 0 {
			latest = all[len(all)-1].Original()
		}
		w.Header().Set("Content-Type", "application/json")
		doc := map[string]any{"name": p, "dist-tags": map[string]string{"latest": latest}, "versions": vs}
		if t := r.times[p]; t != nil && !strings.Contains(req.Header.Get("Accept"), "install-v1") {
			doc["time"] = t // the full document has it; the abbreviated one, as the npm registry serves it, not
		}
		json.NewEncoder(w).Encode(doc)
	case http.MethodPut:
		var doc struct {
			Versions    map[string]json.RawMessage `json:"versions"`
			Attachments map[string]struct {
				Data string `json:"data"`
			} `json:"_attachments"`
		}
		if err := json.NewDecoder(io.LimitReader(req.Body, 64<<20)).Decode(&doc); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.pkgs[p] == nil {
			r.pkgs[p] = map[string]json.RawMessage{}
		}
		for file, a := range doc.Attachments {
			b, err := base64.StdEncoding.DecodeString(a.Data)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.tgz[p+"/-/"+filepath.Base(file)] = b
		}
		for v, raw := range doc.Versions {
			if _, exists := r.pkgs[p][v]; exists {
				http.Error(w, `{"error":"cannot publish over an existing version"}`, http.StatusForbidden)
				return
			}
			var vd map[string]any
			json.Unmarshal(raw, &vd)
			if dist, ok := vd["dist"].(map[string]any); ok {
				// Serve the tarball from here, whatever URL npm computed.
				if u, ok := dist["tarball"].(string); ok {
					dist["tarball"] = r.URL + p + "/-/" + filepath.Base(u)
				}
			}
			b, _ := json.Marshal(vd)
			r.pkgs[p][v] = b
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// Env returns environment settings that point npm and mcp-audit at the
// registry, with a throwaway user config holding a dummy token.
func (r *Registry) Env(t testing.TB) []string {
	dir := t.TempDir()
	rc := filepath.Join(dir, "npmrc")
	host := strings.TrimPrefix(r.URL, "http:")
	os.WriteFile(rc, []byte("registry="+r.URL+"\n"+host+":_authToken=test-token\n"), 0o600)
	return []string{"NPM_CONFIG_REGISTRY=" + r.URL, "NPM_CONFIG_USERCONFIG=" + rc}
}

// PublishFixture publishes a version of the fixture server whose bin runs
// it with the given modes, using `npm publish --ignore-scripts`.
func (r *Registry) PublishFixture(t testing.TB, fixtureDir, name, version string, modes ...string) {
	t.Helper()
	r.PublishFixtureDeps(t, fixtureDir, name, version, nil, modes...)
}

// PublishFixtureDeps is PublishFixture with dependencies in package.json.
func (r *Registry) PublishFixtureDeps(t testing.TB, fixtureDir, name, version string, deps map[string]string, modes ...string) {
	t.Helper()
	server, err := os.ReadFile(filepath.Join(fixtureDir, "server.js"))
	if err != nil {
		t.Fatal(err)
	}
	// A nil list would be "null", which cli.js cannot spread: every fixture
	// published without modes crashed at start, and passed while a crash
	// was not an incomplete verdict.
	m, _ := json.Marshal(append([]string{}, modes...))
	pj, _ := json.Marshal(map[string]any{"name": name, "version": version, "bin": map[string]string{"fixture": "cli.js"},
		"license": "MIT", "dependencies": deps})
	r.Publish(t, map[string]string{
		"package.json": string(pj),
		"server.js":    string(server),
		"cli.js":       "#!/usr/bin/env node\nprocess.argv.splice(2, 0, ..." + string(m) + ");\nrequire('./server.js');\n",
	})
}

// Publish publishes a package made of files (package.json among them) with
// `npm publish --ignore-scripts`.
func (r *Registry) Publish(t testing.TB, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("npm", "publish", "--ignore-scripts", "--access=public", "--registry="+r.URL, "--loglevel=error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), r.Env(t)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm publish %s: %v\n%s", files["package.json"], err, out)
	}
}

// Tarball packs files as an npm package tarball (entries under package/).
func Tarball(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// Use points this test's environment (npm and mcp-audit) at the registry,
// with a fresh install cache.
func (r *Registry) Use(t *testing.T) {
	t.Helper()
	for _, kv := range r.Env(t) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}
