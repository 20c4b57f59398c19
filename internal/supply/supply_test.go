package supply

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// install writes an npm install as the install container leaves it: the
// target srv and its dependency helper (with a postinstall) from the
// registry, in the hidden lockfile, and a package on disk the lockfile
// does not know.
func install(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"node_modules/.package-lock.json": `{"lockfileVersion":3,"packages":{
			"node_modules/srv":{"version":"1.0.0","integrity":"sha512-srv","resolved":"http://192.0.2.1:4873/s3cret/r0/srv/-/srv-1.0.0.tgz"},
			"node_modules/helper":{"version":"2.0.0","integrity":"sha512-helper","hasInstallScript":true}}}`,
		"node_modules/srv/package.json":    `{"name":"srv","version":"1.0.0","dependencies":{"helper":"^2.0.0"}}`,
		"node_modules/helper/package.json": `{"name":"helper","version":"2.0.0","scripts":{"postinstall":"node setup.js"}}`,
		"node_modules/stray/package.json":  `{"name":"stray","version":"0.1.0"}`,
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type advisor struct {
	asked map[string][]string
	err   error
}

func (a *advisor) Advisories(ctx context.Context, q map[string][]string) (map[string][]deptree.Advisory, error) {
	a.asked = q
	return map[string][]deptree.Advisory{"helper": {{ID: 4, Title: "RCE", Severity: "critical", VulnerableVersions: "<2.1.0"}}}, a.err
}

// TestRecord: the manifest gets the tree (byte-identical when read
// twice), the publish time and a bounded deprecation, and the advisories
// of the packages npm fetched from the registry — not of one the
// lockfile does not know. A failed advisory request is a note, not "none
// known".
func TestRecord(t *testing.T) {
	root := install(t)
	pkg := &target.Package{Name: "srv", Version: "1.0.0", Root: root, Dir: "node_modules/srv",
		Published: time.Date(2026, 3, 31, 0, 21, 0, 0, time.UTC), Deprecated: "use srv2\x1b[31m"}
	adv := &advisor{}
	man := &m.Manifest{}
	Record(context.Background(), adv, pkg, man)
	if man.Target.Published != "2026-03-31T00:21:00Z" || strings.ContainsRune(man.Target.Deprecated, 0x1b) {
		t.Errorf("published %q, deprecated %q", man.Target.Published, man.Target.Deprecated)
	}
	if man.Dependencies == nil || len(man.Dependencies.NPM) != 3 {
		t.Fatalf("tree: %+v", man.Dependencies)
	}
	if diff := cmp.Diff(map[string][]string{"helper": {"2.0.0"}, "srv": {"1.0.0"}}, adv.asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if r := man.Run.Advisories; r == nil || len(r.Vulnerable) != 1 || r.Vulnerable[0].Name != "helper" {
		t.Errorf("advisories: %+v", r)
	}
	again := &m.Manifest{}
	Record(context.Background(), &advisor{}, pkg, again)
	a, _ := m.Encode(man)
	b, _ := m.Encode(again)
	if string(a) != string(b) {
		t.Error("the same install encodes to other bytes")
	}
	failed := &m.Manifest{}
	Record(context.Background(), &advisor{err: errors.New("registry unreachable")}, pkg, failed)
	if failed.Run.Advisories != nil || len(failed.Run.Notes) != 1 || !strings.Contains(failed.Run.Notes[0], "not checked") {
		t.Errorf("a failed request: advisories %+v, notes %q", failed.Run.Advisories, failed.Run.Notes)
	}
}

// TestRegistryStatus reads an entry's status from a fake MCP registry on
// loopback, wherever the answer puts it; an answer without one, or a
// missing entry, is an error, never "active".
func TestRegistryStatus(t *testing.T) {
	answers := map[string]string{
		"/v0/servers/io.example%2Fa/versions/1.0.0":  `{"server":{"name":"io.example/a"},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted"}}}`,
		"/v0/servers/io.example%2Fb/versions/latest": `{"server":{"name":"io.example/b","_meta":{"io.modelcontextprotocol.registry/official":{"status":"Deprecated"}}}}`,
		"/v0/servers/io.example%2Fc/versions/1.0.0":  `{"name":"io.example/c","status":"active"}`,
		"/v0/servers/io.example%2Fd/versions/1.0.0":  `{"server":{"name":"io.example/d"}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.EscapedPath()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(a))
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, version, want string }{
		{"io.example/a", "1.0.0", m.RegistryDeleted}, {"io.example/b", "", m.RegistryDeprecated}, {"io.example/c", "1.0.0", m.RegistryActive},
		{"io.example/d", "1.0.0", ""}, {"io.example/e", "1.0.0", ""},
	} {
		e, err := RegistryStatus(context.Background(), srv.Client(), srv.URL, tc.name, tc.version)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: want an error, got %+v", tc.name, e)
		case tc.want != "" && (err != nil || e.Status != tc.want || e.Source != "registry"):
			t.Errorf("%s: %+v %v, want %s", tc.name, e, err, tc.want)
		}
	}
}

// FuzzParseEntry: an MCP registry's answer is hostile input; parsing it
// never panics and a status is bounded, printable text.
func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(`{"server":{"name":"x"},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted"}}}`))
	f.Add([]byte(`{"status":"\u001b[31mactive"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseEntry(b)
		if err == nil && (len(s) > 4*registryStatusSize || strings.ContainsAny(s, "\x1b\n\r")) {
			t.Errorf("status %q", s)
		}
	})
}
