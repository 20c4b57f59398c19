package target

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
)

// TestAdvisoriesThroughGate: the advisory query reaches the configured
// registry's bulk endpoint through the gate, with the host's token and
// the gzipped query as sent, and the answer comes back. An install
// container's gate forwards no POST, not even this one (the control is
// the same request through the advisory gate).
func TestAdvisoriesThroughGate(t *testing.T) {
	var asked map[string][]string
	var sawAuth, sawPath string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth, sawPath = r.Header.Get("Authorization"), r.Method+" "+r.URL.Path
		zr, err := gzip.NewReader(r.Body)
		if err != nil || r.Header.Get("Content-Encoding") != "gzip" {
			http.Error(w, "want gzip", http.StatusBadRequest)
			return
		}
		json.NewDecoder(zr).Decode(&asked)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"axios":[{"id":1,"title":"SSRF","severity":"high","vulnerable_versions":"<1.14.1","url":"https://advisories.example/1"}]}`)
	}))
	defer up.Close()
	cfg := NPMConfig{Registry: up.URL + "/", Scoped: map[string]string{}, tokens: map[string]string{"//" + strings.TrimPrefix(up.URL, "http://") + "/": "tok"}}
	f := &Fetcher{Registry: &Registry{Config: cfg, HTTP: up.Client()}}
	q := map[string][]string{"axios": {"1.14.0"}, "tar": {"6.0.0"}}
	got, err := f.Advisories(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]deptree.Advisory{"axios": {{ID: 1, Title: "SSRF", Severity: "high", VulnerableVersions: "<1.14.1", URL: "https://advisories.example/1"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("advisories (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(q, asked); diff != "" || sawAuth != "Bearer tok" || sawPath != "POST "+deptree.BulkAdvisoryPath {
		t.Errorf("upstream saw %s, auth %q, query (-want +got):\n%s", sawPath, sawAuth, diff)
	}

	install := newRegistryGate(cfg, up.Client())
	gate := httptest.NewServer(install.handler("http://gate.invalid"))
	defer gate.Close()
	res, err := http.Post(gate.URL+"/"+install.secret+"/r0"+deptree.BulkAdvisoryPath, "application/json", strings.NewReader("{}"))
	if err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("the install gate forwarded a POST: %v %v", res.StatusCode, err)
	}
	adv := newRegistryGate(cfg, up.Client())
	adv.advisories = true
	other := httptest.NewServer(adv.handler("http://gate.invalid"))
	defer other.Close()
	if res, _ := http.Post(other.URL+"/"+adv.secret+"/r0/-/npm/v1/security/audits", "application/json", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("the advisory gate forwarded a POST to another path: %d", res.StatusCode)
	}
}

// TestPublishTime: the abbreviated document's time is used when it has
// one; otherwise the full document is asked for (Accept:
// application/json), and a registry that says nothing gives zero.
func TestPublishTime(t *testing.T) {
	var accepts []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept"))
		doc := map[string]any{"name": "p", "versions": map[string]any{"1.0.0": map[string]any{"version": "1.0.0"}}}
		if !strings.Contains(r.Header.Get("Accept"), "install-v1") {
			doc["time"] = map[string]string{"1.0.0": "2026-03-31T00:21:00.000Z"}
		}
		json.NewEncoder(w).Encode(doc)
	}))
	defer up.Close()
	r := &Registry{Config: NPMConfig{Registry: up.URL + "/", Scoped: map[string]string{}}, HTTP: up.Client()}
	p, err := r.Fetch(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.PublishTime(context.Background(), p, "p", "1.0.0")
	if want := time.Date(2026, 3, 31, 0, 21, 0, 0, time.UTC); err != nil || !got.Equal(want) || len(accepts) != 2 || accepts[1] != "application/json" {
		t.Errorf("publish time %v (%v), want %v; accepts %q", got, err, want, accepts)
	}
	if got, _ := r.PublishTime(context.Background(), p, "p", "9.9.9"); !got.IsZero() {
		t.Errorf("an unknown version's publish time %v, want zero", got)
	}
}
