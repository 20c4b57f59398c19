package target

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPyPIGate: index pages come through with every file link pointing at
// the gate; files are served only from origins an index page named.
func TestPyPIGate(t *testing.T) {
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "wheel:"+r.URL.Path) }))
	defer files.Close()
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/simple/demo/" {
			http.NotFound(w, r)
			return
		}
		if u, p, _ := r.BasicAuth(); u != "me" || p != "pw" {
			http.Error(w, "auth", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `<a href="`+files.URL+`/f/demo-1.0-py3-none-any.whl#sha256=ab">demo</a>`)
	}))
	defer index.Close()
	cfg := newPyPIConfig(strings.Replace(index.URL, "http://", "http://me:pw@", 1) + "/simple")
	if cfg.Index != index.URL+"/simple/" {
		t.Fatalf("index %q", cfg.Index)
	}
	g := newPyPIGate(cfg, http.DefaultClient)
	gate := httptest.NewServer(g.handler("http://gate.test"))
	defer gate.Close()
	get := func(p string) (int, string) {
		res, err := http.Get(gate.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// A file origin no index page has named yet is refused.
	hexFiles := strings.Split(g.through(mustURL(t, files.URL), "/x"), "/x/")[1]
	g.origins = map[string]bool{}
	if code, _ := get("/" + g.secret + "/x/" + strings.Split(hexFiles, "/")[0] + "/f/demo-1.0-py3-none-any.whl"); code != http.StatusForbidden {
		t.Errorf("unnamed origin: %d", code)
	}
	code, page := get("/" + g.secret + "/r0/demo/")
	if code != 200 || strings.Contains(page, files.URL) || !strings.Contains(page, `href="http://gate.test/`+g.secret+`/x/`) || !strings.Contains(page, "#sha256=ab") {
		t.Fatalf("page %d %s", code, page)
	}
	link := strings.TrimPrefix(strings.Split(strings.Split(page, `href="`)[1], "#")[0], "http://gate.test")
	if code, body := get(link); code != 200 || body != "wheel:/f/demo-1.0-py3-none-any.whl" {
		t.Errorf("file through the gate: %d %q", code, body)
	}
	if code, _ := get("/" + g.secret + "/r0/../demo/"); code != http.StatusForbidden {
		t.Errorf("dot segment: %d", code)
	}
	if code, _ := get("/wrong/r0/demo/"); code != http.StatusForbidden {
		t.Errorf("no secret: %d", code)
	}
}

func TestLoadPyPIConfig(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".config", "pip"), 0o755)
	os.WriteFile(filepath.Join(dir, ".config", "pip", "pip.conf"), []byte("[global]\nindex-url = http://conf.test/simple\n"), 0o644)
	env := map[string]string{"HOME": dir}
	if c := LoadPyPIConfig(func(k string) string { return env[k] }, ""); c.Index != "http://conf.test/simple/" {
		t.Errorf("pip.conf: %q", c.Index)
	}
	env["PIP_INDEX_URL"] = "http://env.test/simple/"
	if c := LoadPyPIConfig(func(k string) string { return env[k] }, ""); c.Index != "http://env.test/simple/" {
		t.Errorf("env: %q", c.Index)
	}
	if c := LoadPyPIConfig(func(k string) string { return env[k] }, "http://flag.test/s"); c.Index != "http://flag.test/s/" {
		t.Errorf("flag: %q", c.Index)
	}
}

func TestEntryPointsFromSetupCfg(t *testing.T) {
	var d PyDist
	d.readEntryPoints([]byte("[metadata]\nname = x\n[options.entry_points]\nconsole_scripts =\n    demo-mcp = demo.cli:main\n    other = demo:o\ngui_scripts =\n    g = demo:g\n"), true)
	if len(d.Scripts) != 2 || d.Scripts["demo-mcp"] != "demo.cli:main" {
		t.Errorf("scripts %v", d.Scripts)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPyPIGateRedirectRefused: a file link whose origin redirects to an
// origin no index page named is refused and named; the other origin is
// never asked.
func TestPyPIGateRedirectRefused(t *testing.T) {
	asked := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked++ }))
	defer other.Close()
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/simple/demo/" {
			io.WriteString(w, `<a href="/f/demo-1.0-py3-none-any.whl#sha256=ab">demo</a>`)
			return
		}
		http.Redirect(w, r, other.URL+"/demo-1.0-py3-none-any.whl", http.StatusFound)
	}))
	defer index.Close()
	g := newPyPIGate(newPyPIConfig(index.URL+"/simple/"), &http.Client{})
	gate := httptest.NewServer(g.handler("http://gate.test"))
	defer gate.Close()
	res, err := http.Get(gate.URL + "/" + g.secret + "/r0/demo/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	link := strings.TrimPrefix(strings.Split(strings.Split(string(page), `href="`)[1], "#")[0], "http://gate.test")
	if res, err = http.Get(gate.URL + link); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || asked != 0 || len(g.Refused()) != 1 || !strings.Contains(g.Refused()[0], "redirect to "+other.URL) {
		t.Errorf("status %d, other asked %d, refused %q", res.StatusCode, asked, g.Refused())
	}
}
