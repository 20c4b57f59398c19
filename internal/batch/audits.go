package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Audited is one finished audit of a published results directory: its
// record, its manifest, and the manifest's bytes as published.
type Audited struct {
	Record
	Manifest *m.Manifest
	Data     []byte
}

// Audits reads a results directory the way a consumer of the feed would
// (VerifyFeed first: another job's artifact is input, not trusted) and
// returns its finished audits sorted by server, with the time its feed was
// generated.
func Audits(out string) ([]Audited, string, error) {
	if err := VerifyFeed(out); err != nil {
		return nil, "", fmt.Errorf("%s: %w", out, err)
	}
	generated, err := generatedAt(out)
	if err != nil {
		return nil, "", err
	}
	es, err := load(out)
	if err != nil {
		return nil, "", err
	}
	var as []Audited
	for _, e := range es {
		if e.man == nil {
			continue
		}
		data, err := fsutil.ReadFileBounded(filepath.Join(out, filepath.FromSlash(e.Record.Manifest)), maxManifest)
		if err != nil {
			return nil, "", err
		}
		if sum := sha256.Sum256(data); e.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
			return nil, "", fmt.Errorf("%s: %s does not match its record's digest", e.Server, e.Record.Manifest)
		}
		as = append(as, Audited{Record: e.Record, Manifest: e.man, Data: data})
	}
	return as, generated, nil
}

// ReportHTML renders the report of a results directory as of generated,
// the page Publish writes, for a page served elsewhere: links gives each
// card's links there (a link into the results directory would not
// resolve).
func ReportHTML(out, generated string, links Links) ([]byte, error) {
	es, err := load(out)
	if err != nil {
		return nil, err
	}
	b, err := fsutil.ReadFileBounded(filepath.Join(out, "index.json"), maxManifest)
	if err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	if links == nil {
		links = resultsLinks(profileLinks(idx))
	}
	return htmlReport(es, generated, links)
}

// generatedAt is when the results' index.json was written (RFC 3339).
func generatedAt(out string) (string, error) {
	b, err := fsutil.ReadFileBounded(filepath.Join(out, "index.json"), maxManifest)
	if err != nil {
		return "", err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return "", fmt.Errorf("index.json: %w", err)
	}
	if _, err := time.Parse(time.RFC3339, idx.GeneratedAt); err != nil {
		return "", fmt.Errorf("index.json: generated_at: %w", err)
	}
	return idx.GeneratedAt, nil
}
