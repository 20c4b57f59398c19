package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// ParseShard reads "K/N".
func ParseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q: want K/N with 1 <= K <= N", s)
	}
	return k, n, nil
}

// Select returns the servers of a shard, sorted by name.
func Select(servers []*config.Server, k, n int) []*config.Server {
	sorted := append([]*config.Server(nil), servers...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	if n == 0 {
		return sorted
	}
	var out []*config.Server
	for i, s := range sorted {
		if i%n+1 == k {
			out = append(out, s)
		}
	}
	return out
}

// Merge combines results directories (shards) into out and publishes.
func Merge(out string, dirs []string) error {
	for _, dir := range dirs {
		rs, err := Records(dir)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if old, err := readRecord(out, r.Server); err == nil && old.Status == StatusDone && r.Status != StatusDone {
				continue // keep a finished audit over a failed one
			}
			if r.Manifest != "" {
				if err := copyManifest(out, dir, r); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(filepath.Join(out, "records"), 0o755); err != nil {
				return err
			}
			if err := writeRecord(out, r); err != nil {
				return err
			}
		}
	}
	return Publish(out)
}

// copyManifest copies a record's manifest from a shard into out, once it
// matches the record's digest and sits at its package's stable path: a
// shard is another job's artifact, not trusted.
func copyManifest(out, dir string, r Record) error {
	data, err := fsutil.ReadFileBounded(filepath.Join(dir, filepath.FromSlash(r.Manifest)), maxManifest)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); r.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		return fmt.Errorf("%s: %s does not match the record's digest", dir, r.Manifest)
	}
	man, err := m.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", dir, r.Manifest, err)
	}
	want, err := baseline.Path("manifests", man.Target.Ecosystem, man.Target.Name, man.Target.Version)
	if err != nil || filepath.ToSlash(want) != r.Manifest {
		return fmt.Errorf("%s: %s holds a manifest of %s %s", dir, r.Manifest, man.Target.Name, man.Target.Version)
	}
	dst := filepath.Join(out, filepath.FromSlash(r.Manifest))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
