package target

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// A registryGate is the only way out of an install container. npm inside
// the container talks plain HTTP to the gate; the gate, running in
// mcp-audit on the host, forwards GET requests to the configured
// registries with the host's CA bundle and tokens. The container therefore
// holds no token, needs no CA, and can reach nothing but the registries:
// a tarball or git URL on any other host is refused and named.
type registryGate struct {
	http      *http.Client
	upstreams []gateUpstream
	// secret prefixes every path, so other local processes cannot use the
	// gate (and its tokens) while an install runs.
	secret string

	mu      sync.Mutex
	refused []string
	base    string // the gate's address as the container sees it
	// advisories lets the gate forward the one POST it knows, the bulk
	// advisory query (advisorygate.go); only the host's advisory client
	// gets such a gate, never an install container.
	advisories bool
}

type gateUpstream struct {
	url   string // with trailing slash
	token string
}

// maxGateDocument bounds one packument the gate rewrites in memory;
// tarballs stream with the tarball bound.
const maxGateDocument = maxMetadata

func newRegistryGate(cfg NPMConfig, hc *http.Client) *registryGate {
	b := make([]byte, 16)
	rand.Read(b)
	g := &registryGate{secret: hex.EncodeToString(b)}
	// The gate follows redirects only to the configured registries' hosts.
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !g.upstreamHost(req.URL.Host) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	g.http = &c
	seen := map[string]bool{}
	add := func(u string) {
		u = withSlash(u)
		if !seen[u] {
			seen[u] = true
			g.upstreams = append(g.upstreams, gateUpstream{url: u, token: cfg.token(u)})
		}
	}
	add(cfg.Registry)
	for _, scope := range sortedKeys(cfg.Scoped) {
		add(cfg.Scoped[scope])
	}
	return g
}

// prefix is the gate's URL for upstream i, as seen from the container.
func (g *registryGate) prefix(base string, i int) string {
	return strings.TrimSuffix(base, "/") + "/" + g.secret + "/r" + strconv.Itoa(i) + "/"
}

// npmArgs are the registry flags for npm inside the container.
func (g *registryGate) npmArgs(base string, cfg NPMConfig) []string {
	index := map[string]int{}
	for i, u := range g.upstreams {
		index[u.url] = i
	}
	args := []string{"--registry=" + g.prefix(base, index[withSlash(cfg.Registry)])}
	for _, scope := range sortedKeys(cfg.Scoped) {
		args = append(args, "--"+scope+":registry="+g.prefix(base, index[withSlash(cfg.Scoped[scope])]))
	}
	return args
}

// Refused lists the requests the gate did not forward, for the error
// message of a failed install.
func (g *registryGate) Refused() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.refused...)
}

func (g *registryGate) refuse(w http.ResponseWriter, what string) {
	g.mu.Lock()
	if len(g.refused) < 20 {
		g.refused = append(g.refused, what)
	}
	g.mu.Unlock()
	http.Error(w, "refused by mcp-audit: only the configured registries are reachable", http.StatusForbidden)
}

// handler serves the gate for a container that reaches it at base
// (http://IP:PORT).
func (g *registryGate) handler(base string) http.Handler {
	g.base = base
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/"+g.secret+"/r")
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead && !g.advisoryPost(r, rest)) {
			g.refuse(w, textsafe.Line(r.Method+" "+r.URL.Path, 200))
			return
		}
		num, path, _ := strings.Cut(rest, "/")
		// npm encodes a scoped name's slash (@scope%2fname); dot segments,
		// plain or encoded, are never a package path.
		if dec, err := url.PathUnescape(path); err != nil || strings.Contains("/"+dec+"/", "/../") ||
			strings.Contains("/"+dec+"/", "/./") || strings.Contains(dec, "\\") {
			g.refuse(w, textsafe.Line(r.URL.Path, 200)) // no climbing out of the registry's path with its token
			return
		}
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 || i >= len(g.upstreams) {
			g.refuse(w, textsafe.Line(r.URL.Path, 200))
			return
		}
		if r.Method == http.MethodPost {
			g.forwardAdvisory(w, r, g.upstreams[i])
			return
		}
		g.forward(w, r, base, g.upstreams[i], path)
	})
}

func (g *registryGate) forward(w http.ResponseWriter, r *http.Request, base string, up gateUpstream, path string) {
	target := up.url + path
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target, nil)
	if err != nil {
		g.refuse(w, textsafe.Line(path, 200))
		return
	}
	// Only what a registry needs; nothing else from the container passes.
	if a := r.Header.Get("Accept"); a != "" {
		req.Header.Set("Accept", a)
	}
	req.Header.Set("User-Agent", "mcp-audit (npm install in container)")
	if up.token != "" {
		req.Header.Set("Authorization", "Bearer "+up.token)
	}
	res, err := g.http.Do(req)
	if err != nil {
		http.Error(w, "registry unreachable", http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	ct := res.Header.Get("Content-Type")
	w.Header().Set("Content-Type", ct)
	br := bufio.NewReader(res.Body)
	// A registry document is JSON whatever its declared type (some
	// registries say text/plain); tarballs are gzip and stream through.
	head, _ := br.Peek(1)
	if !strings.Contains(ct, "json") && !(len(head) == 1 && head[0] == '{') {
		w.WriteHeader(res.StatusCode)
		io.Copy(w, io.LimitReader(br, maxTarballBytes))
		return
	}
	body, err := io.ReadAll(io.LimitReader(br, maxGateDocument+1))
	if err != nil || len(body) > maxGateDocument {
		http.Error(w, "registry document too large", http.StatusBadGateway)
		return
	}
	w.WriteHeader(res.StatusCode)
	w.Write(g.rewrite(body, base))
}

// rewrite points every tarball URL of a configured registry at the gate,
// so npm fetches tarballs through it too.
func (g *registryGate) rewrite(doc []byte, base string) []byte {
	for i, up := range g.upstreams {
		doc = bytes.ReplaceAll(doc, []byte(`"`+up.url), []byte(`"`+g.prefix(base, i)))
		if alt := strings.TrimSuffix(up.url, "/"); strings.HasPrefix(alt, "https://") {
			// Registries sometimes advertise http:// tarballs for https registries and vice versa.
			doc = bytes.ReplaceAll(doc, []byte(`"http://`+strings.TrimPrefix(up.url, "https://")), []byte(`"`+g.prefix(base, i)))
		}
	}
	return doc
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// unrewrite shows the registries' own URLs in npm's output instead of the
// gate's per-install addresses.
func (g *registryGate) unrewrite(out []byte) []byte {
	if g.base == "" {
		return out
	}
	for i, up := range g.upstreams {
		out = bytes.ReplaceAll(out, []byte(g.prefix(g.base, i)), []byte(up.url))
	}
	return out
}

// upstreamHost reports whether host (host[:port]) is a configured
// registry's.
func (g *registryGate) upstreamHost(host string) bool {
	for _, u := range g.upstreams {
		if hosts.FromURL(u.url) == strings.ToLower(strings.Split(host, ":")[0]) {
			return true
		}
	}
	return false
}
