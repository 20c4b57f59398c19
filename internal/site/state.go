package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// state is a site being extended: its index and changes as read back, the
// files new versions add, and the report to replace.
type state struct {
	dir     string
	idx     *Index
	ch      *Changes
	pending map[string][]byte // site path → content of a new version's file
	report  []byte            // nil: keep the site's report.html
}

// open reads a site back and checks that it is whole: every path is the
// one its name and version give, every manifest is there with its digest,
// every change a version names exists. A partial copy of the published
// site must fail here rather than be deployed without its history.
func open(dir string) (*state, error) {
	idx, ch, err := readState(dir)
	if err != nil {
		return nil, err
	}
	st := &state{dir: dir, idx: idx, ch: ch, pending: map[string][]byte{}}
	slices.SortStableFunc(idx.Servers, func(a, b Server) int {
		return strings.Compare(a.Ecosystem+"\x00"+a.Name, b.Ecosystem+"\x00"+b.Name)
	})
	ids := map[string]bool{}
	for _, e := range ch.Entries {
		if ids[e.ID] {
			return nil, fmt.Errorf("the site's %s has entry %s twice", ChangesFile, e.ID)
		}
		ids[e.ID] = true
	}
	seen := map[string]bool{}
	for _, s := range idx.Servers {
		if seen[s.Ecosystem+"\x00"+s.Name] {
			return nil, fmt.Errorf("the site lists %s twice", s.Name)
		}
		seen[s.Ecosystem+"\x00"+s.Name] = true
		if err := st.checkServer(s, ids); err != nil {
			return nil, fmt.Errorf("the site's %s: %w", IndexFile, err)
		}
	}
	return st, nil
}

func (st *state) checkServer(s Server, ids map[string]bool) error {
	versions := map[string]bool{}
	for _, v := range s.Versions {
		p, err := pathsOf(s.Ecosystem, s.Name, v.Version)
		if err != nil {
			return err
		}
		if versions[v.Version] || p.Page != s.Page || p.Manifest != v.Manifest ||
			v.ToolHive != "" && v.ToolHive != p.ToolHive || v.Docker != "" && v.Docker != p.Docker {
			return fmt.Errorf("%s %s: paths or versions do not match its name", s.Name, v.Version)
		}
		versions[v.Version] = true
		if v.Change != "" && !ids[v.Change] {
			return fmt.Errorf("%s %s: change %s is not in %s", s.Name, v.Version, v.Change, ChangesFile)
		}
		if _, err := st.read(v); err != nil {
			return err
		}
	}
	return nil
}

// read returns a published manifest's bytes after checking its digest.
func (st *state) read(v Version) ([]byte, error) {
	if b, ok := st.pending[v.Manifest]; ok {
		return b, nil
	}
	b, err := fsutil.ReadFileBounded(file(st.dir, v.Manifest), maxState)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); "sha256:"+hex.EncodeToString(sum[:]) != v.Digest {
		return nil, fmt.Errorf("%s does not match its digest", v.Manifest)
	}
	return b, nil
}

// manifest decodes a published version's manifest.
func (st *state) manifest(v Version) (*m.Manifest, error) {
	b, err := st.read(v)
	if err != nil {
		return nil, err
	}
	man, err := m.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Manifest, err)
	}
	return man, nil
}

// server finds or adds a server, keeping the list sorted.
func (st *state) server(ecosystem, name, page string) *Server {
	key := func(s Server) string { return s.Ecosystem + "\x00" + s.Name }
	want := ecosystem + "\x00" + name
	i, found := slices.BinarySearchFunc(st.idx.Servers, want, func(s Server, k string) int { return strings.Compare(key(s), k) })
	if !found {
		st.idx.Servers = slices.Insert(st.idx.Servers, i, Server{Ecosystem: ecosystem, Name: name, Page: page, Versions: []Version{}})
	}
	return &st.idx.Servers[i]
}

// put writes a file unless it already holds data, so an unchanged site
// keeps every byte (and every timestamp).
func put(name string, data []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return fsutil.WriteFileAtomic(name, data)
}
