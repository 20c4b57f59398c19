package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
)

// Bounds of the one POST the gate forwards: the query (gzipped JSON of a
// tree's names and versions) and the answer.
const (
	maxAdvisoryQuery  = 32 << 20
	maxAdvisoryAnswer = deptree.DefaultAdvisoryResponse
)

// advisoryPost reports whether r is the bulk advisory query on a gate
// that forwards it: a POST to exactly that path of a configured registry.
func (g *registryGate) advisoryPost(r *http.Request, rest string) bool {
	if !g.advisories || r.Method != http.MethodPost {
		return false
	}
	_, p, _ := strings.Cut(rest, "/")
	return "/"+p == deptree.BulkAdvisoryPath
}

// forwardAdvisory sends the bulk advisory query to up with the host's
// token, the query and answer bounded; nothing but the body and its
// encoding passes.
func (g *registryGate) forwardAdvisory(w http.ResponseWriter, r *http.Request, up gateUpstream) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAdvisoryQuery+1))
	if err != nil || len(body) > maxAdvisoryQuery {
		http.Error(w, "advisory query too large", http.StatusRequestEntityTooLarge)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, up.url+strings.TrimPrefix(deptree.BulkAdvisoryPath, "/"), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "bad advisory query", http.StatusBadRequest)
		return
	}
	for _, h := range []string{"Content-Type", "Content-Encoding", "Accept"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("User-Agent", "mcp-audit (advisory query)")
	if up.token != "" {
		req.Header.Set("Authorization", "Bearer "+up.token)
	}
	res, err := g.http.Do(req)
	if err != nil {
		http.Error(w, "registry unreachable", http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
	w.WriteHeader(res.StatusCode)
	io.Copy(w, io.LimitReader(res.Body, maxAdvisoryAnswer+1))
}

// gateTransport hands requests to the gate's handler in this process: the
// advisory client reaches the registry through the gate, with nothing
// listening.
type gateTransport struct{ h http.Handler }

func (t gateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	t.h.ServeHTTP(rec, req)
	return &http.Response{StatusCode: rec.status, Status: fmt.Sprintf("%d %s", rec.status, http.StatusText(rec.status)),
		Header: rec.header, Body: io.NopCloser(&rec.body), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// recorder is the gate's answer in memory (bounded by the gate).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// gateBase is the address the in-process gate is asked at; nothing
// resolves or listens there.
const gateBase = "http://advisory-gate.invalid"

// Advisories asks the default registry's bulk advisory endpoint (the one
// npm audit asks) which of the queried versions have advisories, through
// the install gate: the host's registry configuration, CA and token, no
// other host, and no request but this one.
func (f *Fetcher) Advisories(ctx context.Context, q map[string][]string) (map[string][]deptree.Advisory, error) {
	if f.Registry == nil {
		return nil, fmt.Errorf("%w: no npm registry configured", deptree.ErrAdvisories)
	}
	cfg, hc := f.registryConfig()
	g := newRegistryGate(cfg, hc)
	g.advisories = true
	idx := -1
	for i, u := range g.upstreams {
		if u.url == withSlash(cfg.Registry) {
			idx = i
		}
	}
	if idx < 0 {
		return nil, errors.New("the default registry is not among the gate's upstreams")
	}
	c := &deptree.AdvisoryClient{BaseURL: strings.TrimSuffix(g.prefix(gateBase, idx), "/"),
		HTTP: &http.Client{Transport: gateTransport{g.handler(gateBase)}}}
	return c.Bulk(ctx, q)
}
