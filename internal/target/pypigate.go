package target

import (
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// A pypiGate is the registry gate for pip: pip inside the install
// container reads the simple index through it (--index-url points at the
// gate) and the gate rewrites every file link of an index page to itself,
// as the npm gate does with tarball URLs. Files are fetched only from the
// origins an index page of the configured index named: the container
// reaches nothing else, and the index's credentials go only to the index.
type pypiGate struct {
	*registryGate
	cfg PyPIConfig

	omu     sync.Mutex
	origins map[string]bool // scheme://host[:port] named by an index page
}

func newPyPIGate(cfg PyPIConfig, hc *http.Client) *pypiGate {
	g := &pypiGate{cfg: cfg, origins: map[string]bool{}}
	g.registryGate = newRegistryGate(NPMConfig{Registry: cfg.Index}, hc)
	// Index pages and file hosts differ (files often live on a CDN): the
	// gate follows redirects to origins an index page named.
	g.registryGate.http.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !g.allowed(origin(req.URL)) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return g
}

// indexURL is pip's --index-url inside the container.
func (g *pypiGate) indexURL(base string) string { return g.prefix(base, 0) }

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func (g *pypiGate) allowed(o string) bool {
	g.omu.Lock()
	defer g.omu.Unlock()
	return g.origins[o]
}

// handler serves /SECRET/r0/PATH (index pages) and /SECRET/x/HEXORIGIN/PATH
// (files named by an index page).
func (g *pypiGate) handler(base string) http.Handler {
	g.base = base
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/"+g.secret+"/")
		dec, err := url.PathUnescape(rest)
		if !ok || err != nil || r.Method != http.MethodGet && r.Method != http.MethodHead ||
			strings.Contains("/"+dec+"/", "/../") || strings.Contains("/"+dec+"/", "/./") || strings.Contains(dec, "\\") {
			g.refuse(w, textsafe.Line(r.Method+" "+r.URL.Path, 200))
			return
		}
		if p, ok := strings.CutPrefix(rest, "r0/"); ok {
			g.fetch(w, r, g.cfg.Index+p, true)
			return
		}
		if p, ok := strings.CutPrefix(rest, "x/"); ok {
			hexOrigin, filePath, _ := strings.Cut(p, "/")
			o, err := hex.DecodeString(hexOrigin)
			if err == nil && g.allowed(string(o)) {
				g.fetch(w, r, string(o)+"/"+filePath, false)
				return
			}
		}
		g.refuse(w, textsafe.Line(r.URL.Path, 200))
	})
}

func (g *pypiGate) fetch(w http.ResponseWriter, r *http.Request, target string, page bool) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target, nil)
	if err != nil {
		g.refuse(w, textsafe.Line(target, 200))
		return
	}
	if a := r.Header.Get("Accept"); a != "" {
		req.Header.Set("Accept", a)
	}
	req.Header.Set("User-Agent", "mcp-audit (pip install in container)")
	if iu, err := url.Parse(g.cfg.Index); err == nil && g.cfg.user != "" && origin(iu) == origin(req.URL) {
		req.SetBasicAuth(g.cfg.user, g.cfg.password)
	}
	res, err := g.http.Do(req)
	if err != nil {
		http.Error(w, "index unreachable", http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		// A redirect CheckRedirect did not follow: to an origin no index
		// page named. Refused and named, not passed on to pip.
		g.refuse(w, textsafe.Line("redirect to "+res.Header.Get("Location"), 200))
		return
	}
	ct := res.Header.Get("Content-Type")
	w.Header().Set("Content-Type", ct)
	if !page || res.StatusCode != http.StatusOK {
		w.WriteHeader(res.StatusCode)
		io.Copy(w, io.LimitReader(res.Body, maxTarballBytes))
		return
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxGateDocument+1))
	if err != nil || len(body) > maxGateDocument {
		http.Error(w, "index page too large", http.StatusBadGateway)
		return
	}
	w.WriteHeader(res.StatusCode)
	w.Write(g.rewritePage(body, res.Request.URL, strings.Contains(ct, "json")))
}

// rewritePage points every file link of an index page at the gate.
func (g *pypiGate) rewritePage(body []byte, page *url.URL, isJSON bool) []byte {
	if isJSON {
		var doc map[string]any
		if json.Unmarshal(body, &doc) != nil {
			return body
		}
		files, _ := doc["files"].([]any)
		for _, f := range files {
			if m, ok := f.(map[string]any); ok {
				if s, ok := m["url"].(string); ok {
					m["url"] = g.through(page, s)
				}
			}
		}
		out, err := json.Marshal(doc)
		if err != nil {
			return body
		}
		return out
	}
	return reHref.ReplaceAllFunc(body, func(m []byte) []byte {
		h := reHref.FindSubmatch(m)
		return []byte(`href="` + html.EscapeString(g.through(page, html.UnescapeString(string(h[1])))) + `"`)
	})
}

// through maps a link of an index page to the gate and allows its origin.
func (g *pypiGate) through(page *url.URL, link string) string {
	u, err := page.Parse(link)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return "#refused"
	}
	o := origin(u)
	g.omu.Lock()
	g.origins[o] = true
	g.omu.Unlock()
	c := *u
	c.Scheme, c.Host, c.User = "", "", nil
	return strings.TrimSuffix(g.base, "/") + "/" + g.secret + "/x/" + hex.EncodeToString([]byte(o)) + c.String()
}
