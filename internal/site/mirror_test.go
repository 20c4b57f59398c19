package site

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestMirrorKeepsHistory: a site published from run 1, served over HTTP
// and mirrored into an empty directory, then extended with run 2, equals
// the site built from both runs; a mirror of a site never published is
// empty; a tampered manifest stops the mirror.
func TestMirrorKeepsHistory(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.0.0"), "b": server("@s/beta", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.1.0", "x.example")}})
	published := t.TempDir()
	publish(t, published, r1)
	srv := httptest.NewServer(http.FileServer(http.Dir(published)))
	defer srv.Close()

	local := t.TempDir()
	if n, err := Mirror(context.Background(), srv.Client(), srv.URL+"/", local); err != nil || n != 9 {
		t.Fatalf("mirror: %d files, %v", n, err)
	}
	publish(t, local, r2)
	both := t.TempDir()
	publish(t, both, r1, r2)
	if !maps.Equal(snapshot(t, local), snapshot(t, both)) {
		t.Error("a mirrored site extended with run 2 differs from one built from both runs")
	}

	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	fresh := t.TempDir()
	if n, err := Mirror(context.Background(), empty.Client(), empty.URL+"/", fresh); err != nil || n != 0 {
		t.Errorf("mirror of an unpublished site: %d files, %v", n, err)
	}

	os.WriteFile(filepath.Join(published, "npm", "alpha", "1.0.0.json"), []byte("{}\n"), 0o644)
	if _, err := Mirror(context.Background(), srv.Client(), srv.URL+"/", t.TempDir()); err == nil {
		t.Error("a manifest that does not match its digest was mirrored")
	}
	if _, err := Publish(Options{Out: published, Results: []string{r2}}); err == nil {
		t.Error("a site whose manifest does not match its digest was extended")
	}
}
