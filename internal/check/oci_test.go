package check

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestDiscoverImageTags lists the newer version tags of an image from a
// fake registry on loopback (HTTP API v2 tags/list).
func TestDiscoverImageTags(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2/team/server/tags/list" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"tags":["1.0.0","1.1.0","1.2.0-rc.1","latest","2.0.0"]}`)
	}))
	defer srv.Close()
	repo := strings.TrimPrefix(srv.URL, "http://") + "/team/server"
	cfg := loadConfig(t, "servers:\n  img:\n    target: oci:"+repo+":1.0.0\n  pinned:\n    target: oci:"+repo+"@sha256:"+strings.Repeat("a", 64)+"\n  nohost:\n    target: oci:team/server:1.0.0\n")
	digest := "sha256:" + strings.Repeat("b", 64)
	if _, err := baseline.Write(cfg.BaselineDir(), &m.Manifest{SchemaVersion: m.SchemaVersion,
		Target: m.Target{Ecosystem: m.EcosystemOCI, Name: repo, Version: digest}}); err != nil {
		t.Fatal(err)
	}
	got, err := Discover(context.Background(), registry, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{
		{Server: "img", Package: repo, Version: "1.1.0", Baseline: digest},
		{Server: "img", Package: repo, Version: "2.0.0", Baseline: digest},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	c := newChecker(cfg, audit.Deps{}, Options{NewReleases: true})
	c.tags = func(context.Context, string) ([]string, error) { return nil, errors.New("registry down") }
	if cands := c.ociCandidates(context.Background(), cfg.Server("img")); len(cands) != 1 || cands[0].spec != "oci:"+repo+":1.0.0" {
		t.Errorf("unreachable registry: candidates %+v", cands)
	}
	c.tags = nil
	cands := c.ociCandidates(context.Background(), cfg.Server("img"))
	var specs []string
	for _, cd := range cands {
		specs = append(specs, cd.spec)
	}
	if diff := cmp.Diff([]string{"oci:" + repo + ":1.0.0", "oci:" + repo + ":1.1.0", "oci:" + repo + ":2.0.0"}, specs); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}
