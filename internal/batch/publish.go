package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/export"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// IndexSchema is the version of index.json.
const IndexSchema = 1

// Index is the feed: one entry per audited server version, with stable
// per-version paths a client or registry can fetch before install.
type Index struct {
	SchemaVersion int          `json:"schema_version"`
	GeneratedAt   string       `json:"generated_at"`
	Servers       []IndexEntry `json:"servers"`
}

// IndexEntry describes one audited version.
type IndexEntry struct {
	Server    string         `json:"server"`
	Ecosystem string         `json:"ecosystem"`
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	Status    string         `json:"status"` // the manifest's outcome
	Manifest  string         `json:"manifest"`
	Digest    string         `json:"digest"`
	Verdict   string         `json:"verdict"`
	Counts    map[string]int `json:"counts"`
	ToolHive  string         `json:"toolhive_profile,omitempty"` // none when the audit failed
	Docker    string         `json:"docker_allow_hosts,omitempty"`
	Generated string         `json:"generated_at"`
}

// entry is a record with its manifest loaded.
type entry struct {
	Record
	man *m.Manifest
}

func load(out string) ([]entry, error) {
	rs, err := Records(out)
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, r := range rs {
		e := entry{Record: r}
		if r.Status == StatusDone {
			data, err := fsutil.ReadFileBounded(filepath.Join(out, filepath.FromSlash(r.Manifest)), maxManifest)
			if err != nil {
				return nil, err
			}
			if e.man, err = m.Decode(data); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Manifest, err)
			}
		}
		es = append(es, e)
	}
	return es, nil
}

// Publish regenerates index.json, RESULTS.md, report.html and the
// allow-list exports from the records and manifests in out.
func Publish(out string) error {
	_, err := publish(out)
	return err
}

// publish is Publish, returning what every published server's calls
// answered together.
func publish(out string) (coverage.Tally, error) {
	var tally coverage.Tally
	es, err := load(out)
	if err != nil {
		return tally, err
	}
	for _, e := range es {
		tally.Add(e.man)
	}
	return tally, publishEntries(out, es)
}

func publishEntries(out string, es []entry) error {
	var err error
	now := time.Now().UTC().Format(time.RFC3339)
	idx := Index{SchemaVersion: IndexSchema, GeneratedAt: now, Servers: []IndexEntry{}}
	for _, e := range es {
		if e.man == nil {
			continue
		}
		var thPath, dkPath string
		if e.Verdict == m.VerdictPass {
			// A failed audit publishes no allow-list: what it did is what
			// nobody should allow.
			if thPath, dkPath, err = writeProfiles(out, e); err != nil {
				return err
			}
		}
		idx.Servers = append(idx.Servers, IndexEntry{Server: e.Server, Ecosystem: e.Ecosystem, Name: e.Name, Version: e.Version,
			Status: e.Outcome, Manifest: e.Manifest, Digest: e.Digest, Verdict: e.Verdict, Counts: nonNilCounts(e.Counts),
			ToolHive: thPath, Docker: dkPath, Generated: e.AuditedAt})
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "index.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "RESULTS.md"), results(es, now), 0o644); err != nil {
		return err
	}
	html, err := htmlReport(es, now, resultsLinks(profileLinks(idx)))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "report.html"), html, 0o644)
}

// writeProfiles writes a manifest's ToolHive profile and Docker allow-list
// beside its stable path under profiles/, and returns their paths.
func writeProfiles(out string, e entry) (toolHive, docker string, err error) {
	base := strings.TrimSuffix(e.Manifest, ".json")
	th, err := export.ToolHive(e.man)
	if err != nil {
		return "", "", err
	}
	thPath, dkPath := "profiles/"+strings.TrimPrefix(base, "manifests/")+".toolhive.json", "profiles/"+strings.TrimPrefix(base, "manifests/")+".docker.yaml"
	for p, data := range map[string][]byte{thPath: th, dkPath: export.DockerAllowHosts(e.man)} {
		full := filepath.Join(out, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return "", "", err
		}
	}
	return thPath, dkPath, nil
}

// profileLinks are the published allow-list files of each server, for
// the report's links.
func profileLinks(idx Index) map[string][]Link {
	out := map[string][]Link{}
	for _, e := range idx.Servers {
		if e.ToolHive != "" {
			out[e.Server] = append(out[e.Server], Link{"ToolHive profile", relLink(e.ToolHive)})
		}
		if e.Docker != "" {
			out[e.Server] = append(out[e.Server], Link{"Docker allow-list", relLink(e.Docker)})
		}
	}
	return out
}

func nonNilCounts(c map[string]int) map[string]int {
	if c == nil {
		return map[string]int{}
	}
	return c
}

// VerifyFeed checks a published results directory the way a consumer of
// the feed would: every index entry's manifest exists at its stable path,
// matches its digest, decodes, and has its allow-list profiles; every
// finished record is in the index.
func VerifyFeed(out string) error {
	b, err := fsutil.ReadFileBounded(filepath.Join(out, "index.json"), maxManifest)
	if err != nil {
		return err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return fmt.Errorf("index.json: %w", err)
	}
	recs, err := Records(out)
	if err != nil {
		return err
	}
	inIndex := map[string]bool{}
	for _, e := range idx.Servers {
		inIndex[e.Server] = true
		data, err := fsutil.ReadFileBounded(filepath.Join(out, filepath.FromSlash(e.Manifest)), maxManifest)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Server, err)
		}
		if sum := sha256.Sum256(data); e.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
			return fmt.Errorf("%s: %s does not match its digest", e.Server, e.Manifest)
		}
		man, err := m.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Server, err)
		}
		p, err := baseline.Path("manifests", man.Target.Ecosystem, man.Target.Name, man.Target.Version)
		if err != nil || filepath.ToSlash(p) != e.Manifest || man.Target.Version != e.Version || man.Target.Name != e.Name {
			return fmt.Errorf("%s: %s holds %s %s", e.Server, e.Manifest, man.Target.Name, man.Target.Version)
		}
		if e.Verdict != m.VerdictPass && (e.ToolHive != "" || e.Docker != "") {
			return fmt.Errorf("%s: an allow-list published for a failed audit", e.Server)
		}
		for _, prof := range []string{e.ToolHive, e.Docker} {
			if prof == "" && e.Verdict != m.VerdictPass {
				continue
			}
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(prof))); err != nil {
				return fmt.Errorf("%s: %w", e.Server, err)
			}
		}
	}
	for _, r := range recs {
		if r.Status == StatusDone && !inIndex[r.Server] {
			return fmt.Errorf("%s: audited but not in index.json", r.Server)
		}
	}
	return nil
}
