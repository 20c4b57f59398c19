package deptree

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-cmp/cmp"
)

// recorded is an answer in the shape the bulk endpoint gives (fields as
// npm's arborist reads them, plus the cwe and cvss it ignores), keyed by
// package name.
var recorded = map[string]string{
	"@modelcontextprotocol/sdk": `[{"id":1102001,"url":"https://advisories.example/GHSA-aaaa-bbbb-cccc","title":"DNS rebinding protection not enabled by default","severity":"high","vulnerable_versions":"<1.24.0","cwe":["CWE-1188"],"cvss":{"score":7.6,"vectorString":"CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:H"}}]`,
	"lodash":                    `[{"id":1096996,"url":"https://advisories.example/GHSA-dddd-eeee-ffff","title":"Prototype pollution","severity":"moderate","vulnerable_versions":">=4.0.0 <4.17.21","cwe":[]},{"id":1097000,"url":"https://advisories.example/GHSA-zzzz","title":"Old only","severity":"low","vulnerable_versions":"<=3.10.0 || >=4.0.0 <4.1.0"}]`,
	"pre":                       `[{"id":7,"url":"https://advisories.example/GHSA-pre","title":"Prerelease too","severity":"critical","vulnerable_versions":"<2.0.0"}]`,
	"odd":                       `[{"id":8,"url":"https://advisories.example/GHSA-odd","title":"Range nobody reads","severity":"low","vulnerable_versions":"not a range"},{"id":"x","title":"bad id"},"not an object"]`,
	"not-asked":                 `[{"id":9,"title":"ignored","severity":"critical","vulnerable_versions":"*"}]`,
}

// fakeRegistry answers the bulk endpoint as a registry does: a gzipped
// JSON body of name -> versions in, advisories of those names out.
func fakeRegistry(t *testing.T, asked *map[string][]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != BulkAdvisoryPath || r.Header.Get("Content-Encoding") != "gzip" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "not gzip", http.StatusBadRequest)
			return
		}
		var q map[string][]string
		if err := json.NewDecoder(zr).Decode(&q); err != nil {
			http.Error(w, "not json", http.StatusBadRequest)
			return
		}
		*asked = q
		var parts []string
		for name := range q {
			if a, ok := recorded[name]; ok {
				b, _ := json.Marshal(name)
				parts = append(parts, string(b)+":"+a)
			}
		}
		parts = append(parts, `"not-asked":`+recorded["not-asked"])
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{"+strings.Join(parts, ",")+"}")
	}))
}

func TestAdvisories(t *testing.T) {
	var asked map[string][]string
	srv := fakeRegistry(t, &asked)
	defer srv.Close()
	old := npmTree(pkg("@modelcontextprotocol/sdk", "1.10.0", ""), pkg("lodash", "4.17.20", ""), pkg("pre", "2.0.0", ""),
		NPMPackage{Path: "node_modules/a/node_modules/lodash", Name: "lodash", Version: "3.10.1"})
	new := npmTree(pkg("@modelcontextprotocol/sdk", "1.24.0", ""), pkg("lodash", "4.17.20", ""), pkg("pre", "2.0.0-beta.1", ""),
		pkg("odd", "1.0.0", ""), NPMPackage{Path: "node_modules/linked", Name: "linked", Link: true})
	c := &AdvisoryClient{BaseURL: srv.URL + "/", HTTP: srv.Client()}
	// Both trees in one request, so both are judged against the same advisories.
	q := BulkQuery(old)
	for n, v := range BulkQuery(new) {
		q[n] = append(q[n], v...)
	}
	advs, err := c.Bulk(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := advs["not-asked"]; ok {
		t.Error("kept advisories of a name that was not asked about")
	}
	if _, ok := asked["linked"]; ok {
		t.Error("asked about a link")
	}
	ro, rn := Match(old, advs), Match(new, advs)
	type hit struct {
		Name, Version string
		ID            int64
	}
	hits := func(r AdvisoryReport) []hit {
		var out []hit
		for _, v := range r.Vulnerable {
			out = append(out, hit{v.Name, v.Version, v.Advisory.ID})
		}
		return out
	}
	if d := cmp.Diff([]hit{{"@modelcontextprotocol/sdk", "1.10.0", 1102001}, {"lodash", "4.17.20", 1096996}}, hits(ro)); d != "" {
		t.Errorf("old tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]hit{{"lodash", "4.17.20", 1096996}, {"pre", "2.0.0-beta.1", 7}}, hits(rn)); d != "" {
		t.Errorf("new tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Unchecked{{Name: "odd", Version: "1.0.0", ID: 8, Range: "not a range", Severity: "low"}}, rn.Unchecked); d != "" {
		t.Errorf("unchecked (-want +got):\n%s", d)
	}
	delta := CompareAdvisories(ro, rn)
	if got := delta.Summary(); got != "fixes 1 advisory, adds 1" {
		t.Errorf("summary %q", got)
	}
	if got := CompareAdvisories(ro, ro).Summary(); got != "" {
		t.Errorf("the same report compared with itself: %q", got)
	}
}

func TestAdvisoryFailures(t *testing.T) {
	q := map[string][]string{"lodash": {"4.17.20"}}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		client  func(*AdvisoryClient)
	}{
		{"an error status", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusServiceUnavailable) }, nil},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }, nil},
		{"past the size bound", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"lodash":[`+strings.Repeat(`{"id":1},`, 200)+`{"id":2}]}`)
		}, func(c *AdvisoryClient) { c.MaxResponse = 1000 }},
		{"past the time bound", func(w http.ResponseWriter, r *http.Request) {
			// The body read, the server notices the client hang up.
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		},
			func(c *AdvisoryClient) { c.Timeout = 100 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c := &AdvisoryClient{BaseURL: srv.URL, HTTP: srv.Client()}
			if tc.client != nil {
				tc.client(c)
			}
			if _, err := c.Bulk(context.Background(), q); !errors.Is(err, ErrAdvisories) {
				t.Errorf("error %v, want ErrAdvisories", err)
			}
		})
	}
}

func TestNodeRanges(t *testing.T) {
	for _, tc := range []struct {
		rng, version string
		want         bool
	}{
		{"<1.24.0", "1.23.9", true}, {"<1.24.0", "1.24.0", false},
		{">=4.0.0 <4.17.21", "4.17.20", true}, {">=4.0.0 <4.17.21", "4.17.21", false}, {">=4.0.0 <4.17.21", "3.9.0", false},
		{"<=0.0.2 || >=1.0.0 <1.0.5", "0.0.2", true}, {"<=0.0.2 || >=1.0.0 <1.0.5", "1.0.4", true}, {"<=0.0.2 || >=1.0.0 <1.0.5", "0.5.0", false},
		{"*", "9.9.9", true}, {"", "1.0.0", true}, {">= 2.0.0", "2.1.0", true}, {"1.2.x", "1.2.7", true}, {"1.2.x", "1.3.0", false},
		{"1.0.0 - 1.2.0", "1.1.0", true}, {"<2.0.0", "2.0.0-rc.1", true}, {">=1.0.0-0 <1.0.1", "1.0.0-beta", true},
		{"=1.2.3", "1.2.3", true}, {"^0.2.3", "0.3.0", false}, {"~1.2.3", "1.2.9", true},
	} {
		c, err := nodeRange(tc.rng)
		if err != nil {
			t.Errorf("%q: %v", tc.rng, err)
			continue
		}
		v := mustVersion(t, tc.version)
		if got := c.Check(v); got != tc.want {
			t.Errorf("%q contains %s = %v, want %v", tc.rng, tc.version, got, tc.want)
		}
	}
}

func mustVersion(t *testing.T, s string) *semver.Version {
	t.Helper()
	v, err := semver.NewVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
