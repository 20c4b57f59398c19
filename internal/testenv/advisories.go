package testenv

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// bulkAdvisoryPath is the npm registry's bulk advisory endpoint, the one
// npm audit asks (deptree.BulkAdvisoryPath).
const bulkAdvisoryPath = "/-/npm/v1/security/advisories/bulk"

// Advise publishes an advisory of name on the registry's bulk advisory
// endpoint: versions in the node-semver range vulnerable are covered.
func (r *Registry) Advise(name string, id int, title, severity, vulnerable string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.advisories == nil {
		r.advisories = map[string][]json.RawMessage{}
	}
	b, _ := json.Marshal(map[string]any{"id": id, "title": title, "severity": severity, "vulnerable_versions": vulnerable,
		"url": fmt.Sprintf("https://advisories.example/%d", id)})
	r.advisories[name] = append(r.advisories[name], b)
}

// AdvisoryQueries are the bulk queries the registry was asked, in order.
func (r *Registry) AdvisoryQueries() []map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string][]string(nil), r.queries...)
}

// SetPublished makes the full document of name say when version was
// published.
func (r *Registry) SetPublished(name, version string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.times == nil {
		r.times = map[string]map[string]string{}
	}
	if r.times[name] == nil {
		r.times[name] = map[string]string{}
	}
	r.times[name][version] = at.UTC().Format(time.RFC3339)
}

// serveBulk answers a bulk query (gzipped JSON of name -> versions) with
// the advisories of the names asked about, as the npm registry does.
// r.mu is held.
func (r *Registry) serveBulk(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	var q map[string][]string
	if err := json.NewDecoder(io.LimitReader(body, 64<<20)).Decode(&q); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.queries = append(r.queries, q)
	out := map[string][]json.RawMessage{}
	for name := range q {
		if a, ok := r.advisories[name]; ok {
			out[name] = a
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
