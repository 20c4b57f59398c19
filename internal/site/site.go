// Package site turns successive batch results into a static site that
// others can subscribe to: every manifest and allow-list at a stable URL,
// a page per server with its versions and what changed between them, the
// HTML report, index.json and an Atom feed of behavior changes.
//
// The site is its own state. index.json and changes.json are read back
// from an existing site and only ever extended: a version, once published,
// keeps its manifest, its date and its change entry; everything else
// (pages, feed.atom) is rendered from them, so publishing the same results
// twice changes no byte.
package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// Schema versions of the site's JSON formats (schemas/site-index.schema.json
// and schemas/site-changes.schema.json).
const (
	IndexSchema   = 1
	ChangesSchema = 1
)

// File names at the site's root.
const (
	IndexFile   = "index.json"
	ChangesFile = "changes.json"
	FeedFile    = "feed.atom"
	ReportFile  = "report.html"
	HomeFile    = "index.html"
	// PageFile is each server's page, in its directory.
	PageFile = "index.html"
)

// Index lists every published version of every server.
type Index struct {
	SchemaVersion int    `json:"schema_version"`
	FeedID        string `json:"feed_id"`
	// Updated is the newest publication date of a version.
	Updated string `json:"updated"`
	// ReportGeneratedAt is when the results shown in report.html were
	// generated: older results never replace a newer report.
	ReportGeneratedAt string   `json:"report_generated_at"`
	Servers           []Server `json:"servers"`
}

// Server is one package, by ecosystem and name.
type Server struct {
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name"`
	Page      string `json:"page"`
	// Versions in the order they were published, oldest first.
	Versions []Version `json:"versions"`
}

// Version is one audited version at its stable paths.
type Version struct {
	Version  string         `json:"version"`
	Manifest string         `json:"manifest"`
	Digest   string         `json:"digest"`
	Status   string         `json:"status"`
	Verdict  string         `json:"verdict"`
	Counts   map[string]int `json:"counts"`
	// Coverage is the audit's coverage summary line.
	Coverage string `json:"coverage,omitempty"`
	ToolHive string `json:"toolhive_profile,omitempty"`
	Docker   string `json:"docker_allow_hosts,omitempty"`
	// Published is when the version was first published: the time its
	// audit finished.
	Published string `json:"published"`
	// Previous is the version it was compared with ("" for the first).
	Previous string `json:"previous,omitempty"`
	// Change is the id of its entry in changes.json, "" when its behavior
	// did not differ from Previous.
	Change string `json:"change,omitempty"`
}

// Changes is the feed of behavior changes in JSON; feed.atom renders it.
type Changes struct {
	SchemaVersion int     `json:"schema_version"`
	Entries       []Entry `json:"entries"`
}

// Entry is one version whose behavior differs from the previous one.
// Its text is cleaned with textsafe when it is recorded.
type Entry struct {
	ID         string           `json:"id"`
	Published  string           `json:"published"`
	Ecosystem  string           `json:"ecosystem"`
	Name       string           `json:"name"`
	OldVersion string           `json:"old_version"`
	NewVersion string           `json:"new_version"`
	Severity   string           `json:"severity"` // the worst finding's, or "none"
	Title      string           `json:"title"`
	Verdict    string           `json:"verdict"`
	FailOn     policy.Severity  `json:"fail_on"`
	Counts     map[string]int   `json:"counts"`
	Findings   []policy.Finding `json:"findings"`
	Changes    []diff.Change    `json:"changes"`
}

// maxState bounds index.json and changes.json read back from a site.
const maxState = 64 << 20

// readState reads the site's index and changes, or empty ones for a new
// site. Half a state (one file without the other) is an error: it would
// lose history.
func readState(dir string) (*Index, *Changes, error) {
	idx := &Index{SchemaVersion: IndexSchema, Servers: []Server{}}
	ch := &Changes{SchemaVersion: ChangesSchema, Entries: []Entry{}}
	errI := readJSON(filepath.Join(dir, IndexFile), idx)
	errC := readJSON(filepath.Join(dir, ChangesFile), ch)
	switch {
	case errors.Is(errI, os.ErrNotExist) && errors.Is(errC, os.ErrNotExist):
		return idx, ch, nil
	case errI != nil:
		return nil, nil, fmt.Errorf("reading the site's %s: %w", IndexFile, errI)
	case errC != nil:
		return nil, nil, fmt.Errorf("reading the site's %s: %w", ChangesFile, errC)
	case idx.SchemaVersion != IndexSchema || ch.SchemaVersion != ChangesSchema:
		return nil, nil, fmt.Errorf("the site's schema versions %d/%d are not %d/%d", idx.SchemaVersion, ch.SchemaVersion, IndexSchema, ChangesSchema)
	}
	if idx.Servers == nil {
		idx.Servers = []Server{}
	}
	if ch.Entries == nil {
		ch.Entries = []Entry{}
	}
	return idx, ch, nil
}

func readJSON(name string, v any) error {
	b, err := fsutil.ReadFileBounded(name, maxState)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// encodeJSON is the site's canonical JSON: two-space indent, <, > and &
// escaped (json.Marshal's default), trailing newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
