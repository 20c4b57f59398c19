package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// PyIndex is a small PyPI simple index on loopback (PEP 503 HTML, PEP 691
// JSON when asked for it), serving files under /files/. The public index
// is not reachable on the development machines; tests add fixture
// distributions and audit them through the real install path.
type PyIndex struct {
	// URL is the index URL (…/simple/).
	URL string
	// HTMLOnly makes the index answer in PEP 503 HTML even when JSON is
	// asked for.
	HTMLOnly  bool
	srv       *httptest.Server
	mu        sync.Mutex
	files     map[string][]byte   // file name -> bytes
	projects  map[string][]string // normalized name -> file names
	redirects map[string]string   // file name -> where /files/NAME redirects
	log       []string            // "User-Agent path" of every request
}

// NewPyIndex starts an index; it stops when the test ends.
func NewPyIndex(t testing.TB) *PyIndex {
	t.Helper()
	x := &PyIndex{files: map[string][]byte{}, projects: map[string][]string{}, redirects: map[string]string{}}
	x.srv = httptest.NewServer(http.HandlerFunc(x.serve))
	x.URL = x.srv.URL + "/simple/"
	t.Cleanup(x.srv.Close)
	return x
}

var reNorm = regexp.MustCompile(`[-_.]+`)

func normalize(s string) string { return strings.ToLower(reNorm.ReplaceAllString(s, "-")) }

// Add publishes a wheel or sdist of project under its file name.
func (x *PyIndex) Add(project, file string, data []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := normalize(project)
	x.files[file] = data
	x.projects[n] = append(x.projects[n], file)
	sort.Strings(x.projects[n])
}

// Redirect makes the index answer a request for file with a redirect to
// target (a file that lives elsewhere); its index page still links it
// under /files/.
func (x *PyIndex) Redirect(file, target string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.redirects[file] = target
}

// Requests lists the requests the index answered, as "User-Agent path".
func (x *PyIndex) Requests() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.log...)
}

func (x *PyIndex) serve(w http.ResponseWriter, r *http.Request) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.log = append(x.log, r.Header.Get("User-Agent")+" "+r.URL.Path)
	if f, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
		if to, ok := x.redirects[f]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		b, ok := x.files[f]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(b)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/simple/")
	name = strings.TrimSuffix(name, "/")
	files := x.projects[name]
	if !ok || len(files) == 0 {
		http.NotFound(w, r)
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "application/vnd.pypi.simple.v1+json") && !x.HTMLOnly {
		x.serveJSON(w, name, files)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><body><h1>Links for %s</h1>\n", html.EscapeString(name))
	for _, f := range files {
		// Relative links, as many indexes serve them.
		fmt.Fprintf(w, "<a href=\"../../files/%s#sha256=%s\">%s</a><br/>\n", f, x.sum(f), html.EscapeString(f))
	}
	fmt.Fprint(w, "</body></html>\n")
}

func (x *PyIndex) serveJSON(w http.ResponseWriter, name string, files []string) {
	type file struct {
		Filename string            `json:"filename"`
		URL      string            `json:"url"`
		Hashes   map[string]string `json:"hashes"`
	}
	doc := struct {
		Meta  map[string]string `json:"meta"`
		Name  string            `json:"name"`
		Files []file            `json:"files"`
	}{Meta: map[string]string{"api-version": "1.0"}, Name: name}
	for _, f := range files {
		doc.Files = append(doc.Files, file{Filename: f, URL: x.srv.URL + "/files/" + f, Hashes: map[string]string{"sha256": x.sum(f)}})
	}
	w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
	json.NewEncoder(w).Encode(doc)
}

func (x *PyIndex) sum(f string) string {
	s := sha256.Sum256(x.files[f])
	return hex.EncodeToString(s[:])
}
