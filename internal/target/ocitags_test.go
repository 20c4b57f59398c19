package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// fakeRegistry serves tags/list for team/server in two pages behind an
// anonymous bearer token, like public registries do.
func fakeRegistry(t *testing.T, extra func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if extra != nil && extra(w, r) {
			return
		}
		switch {
		case r.URL.Path == "/token":
			if r.URL.Query().Get("scope") != "repository:team/server:pull" || r.Header.Get("Authorization") != "" {
				http.Error(w, "bad scope", http.StatusBadRequest)
				return
			}
			fmt.Fprint(w, `{"token":"anon-1"}`)
		case r.Header.Get("Authorization") != "Bearer anon-1":
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="registry.test",scope="repository:team/server:pull"`)
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/v2/team/server/tags/list" && r.URL.Query().Get("last") == "":
			w.Header().Set("Link", `</v2/team/server/tags/list?n=1000&last=1.1.0>; rel="next"`)
			fmt.Fprint(w, `{"name":"team/server","tags":["1.0.0","1.1.0","latest"]}`)
		case r.URL.Path == "/v2/team/server/tags/list":
			w.Header().Set("Link", `<http://elsewhere.test/v2/x/tags/list>; rel="next"`) // not followed
			fmt.Fprint(w, `{"tags":["v1.2.0","2.0.0-rc.1","bad tag\u001b[31m","1.10.0"]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestImageTags(t *testing.T) {
	host := fakeRegistry(t, nil)
	tags, err := ImageTags(context.Background(), nil, host+"/team/server")
	want := []string{"1.0.0", "1.1.0", "latest", "v1.2.0", "2.0.0-rc.1", "1.10.0"}
	if err != nil || !slices.Equal(tags, want) {
		t.Fatalf("tags %q %v, want %q", tags, err, want)
	}
	if got := NewerTags(tags, "1.1.0", false); !slices.Equal(got, []string{"v1.2.0", "1.10.0"}) {
		t.Errorf("newer %q", got)
	}
	if got := NewerTags(tags, "1.1.0", true); !slices.Equal(got, []string{"v1.2.0", "1.10.0", "2.0.0-rc.1"}) {
		t.Errorf("newer with prereleases %q", got)
	}
	if got := NewerTags(tags, "latest", false); got != nil {
		t.Errorf("newer than latest %q", got)
	}
	if _, err := ImageTags(context.Background(), nil, "team/server"); !errors.Is(err, ErrNoRegistry) {
		t.Errorf("no host: %v", err)
	}
}

func TestImageTagsHostile(t *testing.T) {
	host := fakeRegistry(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v2/huge/tags/list" {
			return false
		}
		fmt.Fprint(w, `{"tags":["`)
		chunk := strings.Repeat("a", 1<<16)
		for range 256 { // 16 MiB offered; 4 MiB read
			if _, err := fmt.Fprint(w, chunk); err != nil {
				break
			}
		}
		return true
	})
	if _, err := ImageTags(context.Background(), nil, host+"/huge"); err == nil {
		t.Error("an oversized answer was accepted")
	}
	if _, err := ImageTags(context.Background(), nil, host+"/missing/repo"); err == nil {
		t.Error("a missing repository gave tags")
	}
}
