package deptree

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// BulkAdvisoryPath is the npm registry endpoint npm audit asks: a POST of
// {"name": ["version", …]}, gzipped, answered with {"name": [advisory, …]}
// for the packages that have advisories (npm's arborist audit-report.js).
const BulkAdvisoryPath = "/-/npm/v1/security/advisories/bulk"

// Defaults of an AdvisoryClient. The registry's advisory service is slow
// at times (tens of seconds for a large tree), hence the generous timeout.
const (
	DefaultAdvisoryTimeout  = 2 * time.Minute
	DefaultAdvisoryResponse = 16 << 20
	maxAdvisoriesPerName    = 1000
)

// ErrAdvisories marks a failed advisory request: the comparison goes on
// without advisories and says so, it never reads as "none known".
var ErrAdvisories = errors.New("advisory request failed")

// AdvisoryClient asks an npm registry which of a tree's versions have
// published advisories. The caller supplies the HTTP client and base URL:
// mcp-audit routes it through the install gate, with nothing else
// opened.
type AdvisoryClient struct {
	// BaseURL is the registry's base URL (no trailing path needed).
	BaseURL string
	HTTP    *http.Client
	// Timeout bounds the whole request (DefaultAdvisoryTimeout when 0);
	// MaxResponse the decoded answer (DefaultAdvisoryResponse when 0).
	Timeout     time.Duration
	MaxResponse int64
}

// Advisory is one published advisory as the bulk endpoint gives it.
type Advisory struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	// Severity is the advisory's own: info, low, moderate, high, critical.
	Severity string `json:"severity"`
	// VulnerableVersions is a node-semver range.
	VulnerableVersions string `json:"vulnerable_versions"`
	URL                string `json:"url"`
}

// BulkQuery is the request body for t: every npm package name with its
// installed versions, sorted (links and versionless packages left out, as
// npm leaves them out).
func BulkQuery(t *Tree) map[string][]string {
	q := map[string][]string{}
	if t == nil {
		return q
	}
	for _, p := range t.NPM {
		if p.Link || p.Version == "" {
			continue
		}
		if !slices.Contains(q[p.Name], p.Version) {
			q[p.Name] = append(q[p.Name], p.Version)
		}
	}
	for _, v := range q {
		slices.Sort(v)
	}
	return q
}

// Bulk asks for the advisories of the queried versions. Only names that
// were asked about are kept from the answer.
func (c *AdvisoryClient) Bulk(ctx context.Context, q map[string][]string) (map[string][]Advisory, error) {
	if len(q) == 0 {
		return map[string][]Advisory{}, nil
	}
	body, err := gzipJSON(q)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cmpOr(c.Timeout, DefaultAdvisoryTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+BulkAdvisoryPath, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAdvisories, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		return nil, fmt.Errorf("%w: no HTTP client", ErrAdvisories)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAdvisories, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: the registry answered %s", ErrAdvisories, clean(res.Status, 80))
	}
	max := cmpOr(c.MaxResponse, DefaultAdvisoryResponse)
	b, err := io.ReadAll(io.LimitReader(res.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %w", ErrAdvisories, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: the answer passed %d bytes", ErrAdvisories, max)
	}
	return parseBulk(b, q)
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func gzipJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding advisory query: %w", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compressing advisory query: %w", err)
	}
	return buf.Bytes(), nil
}

// parseBulk reads the endpoint's answer tolerantly: an advisory of the
// wrong shape is skipped, names not asked about are ignored.
func parseBulk(b []byte, q map[string][]string) (map[string][]Advisory, error) {
	var doc map[string][]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: the answer is not an advisory listing", ErrAdvisories)
	}
	out := map[string][]Advisory{}
	for name, list := range doc {
		if _, asked := q[name]; !asked {
			continue
		}
		for _, raw := range list[:min(len(list), maxAdvisoriesPerName)] {
			var a struct {
				ID                 json.Number `json:"id"`
				Title              string      `json:"title"`
				Severity           string      `json:"severity"`
				VulnerableVersions string      `json:"vulnerable_versions"`
				URL                string      `json:"url"`
			}
			if json.Unmarshal(raw, &a) != nil {
				continue
			}
			id, err := a.ID.Int64()
			if err != nil {
				continue
			}
			out[name] = append(out[name], Advisory{ID: id, Title: clean(a.Title, 512), Severity: clean(a.Severity, 16),
				VulnerableVersions: clean(a.VulnerableVersions, 1024), URL: clean(a.URL, 1024)})
		}
		slices.SortFunc(out[name], func(a, b Advisory) int { return cmp.Compare(a.ID, b.ID) })
	}
	return out, nil
}
