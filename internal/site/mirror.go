package site

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
)

// errNotFound is a 404 from the published site.
var errNotFound = errors.New("not found")

// Mirror copies the site published at base into dir, so a publication
// extends it instead of starting over: index.json, changes.json,
// report.html and every manifest and profile the index lists. Paths come
// from validated names and versions, never from the index's strings, and
// each manifest must match its digest. A site that was never published
// (index.json answers 404) leaves dir as it is.
func Mirror(ctx context.Context, client *http.Client, base, dir string) (files int, err error) {
	if err := CheckBaseURL(base); err != nil || base == "" {
		return 0, fmt.Errorf("mirror: base URL %q: want https://host/path/", base)
	}
	get := func(p string) ([]byte, error) { return fetch(ctx, client, link(base, p)) }
	rawIndex, err := get(IndexFile)
	if errors.Is(err, errNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var idx Index
	if err := json.Unmarshal(rawIndex, &idx); err != nil {
		return 0, fmt.Errorf("mirror: %s: %w", IndexFile, err)
	}
	got := map[string][]byte{IndexFile: rawIndex}
	if got[ChangesFile], err = get(ChangesFile); err != nil {
		return 0, err
	}
	if report, err := get(ReportFile); err == nil {
		got[ReportFile] = report
	} else if !errors.Is(err, errNotFound) {
		return 0, err
	}
	for _, s := range idx.Servers {
		for _, v := range s.Versions {
			p, err := pathsOf(s.Ecosystem, s.Name, v.Version)
			if err != nil {
				return 0, fmt.Errorf("mirror: %w", err)
			}
			if got[p.Manifest], err = get(p.Manifest); err != nil {
				return 0, err
			}
			if sum := sha256.Sum256(got[p.Manifest]); "sha256:"+hex.EncodeToString(sum[:]) != v.Digest {
				return 0, fmt.Errorf("mirror: %s does not match its digest", p.Manifest)
			}
			for listed, want := range map[string]string{v.ToolHive: p.ToolHive, v.Docker: p.Docker} {
				if listed != "" {
					if got[want], err = get(want); err != nil {
						return 0, err
					}
				}
			}
		}
	}
	for p, data := range got {
		if err := fsutil.WriteFileAtomic(file(dir, p), data); err != nil {
			return 0, err
		}
	}
	return len(got), nil
}

// fetch GETs one file of the published site, bounded.
func fetch(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("mirror: %s: %w", url, errNotFound)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("mirror: %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxState+1))
	if err != nil {
		return nil, fmt.Errorf("mirror: %s: %w", url, err)
	}
	if len(b) > maxState {
		return nil, fmt.Errorf("mirror: %s: larger than %d bytes", url, maxState)
	}
	return b, nil
}
