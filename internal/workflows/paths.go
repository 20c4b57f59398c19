package workflows

import (
	"path/filepath"
	"sort"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

// GatePaths are the `paths` a pull-request gate's `on: pull_request`
// filter must list for cfg (read from root) so that every change the
// Action checks starts it: the configuration, the baselines, each
// server_json, and the files of every local directory or tarball server,
// whose content the Action compares with the base commit's even when the
// configuration is untouched. Paths are repository-relative; a path
// outside root cannot be watched and is left out.
func GatePaths(root string, cfg *config.Config) []string {
	seen := map[string]bool{}
	add := func(p string, tree bool) {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
			return
		}
		rel = filepath.ToSlash(rel)
		if tree {
			rel += "/**"
		}
		seen[rel] = true
	}
	add(cfg.Path, false)
	add(cfg.BaselineDir(), true)
	dir := filepath.Dir(cfg.Path)
	for _, s := range cfg.Servers {
		if s.ServerJSON != "" {
			p := s.ServerJSON
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			add(p, false)
		}
		if e := s.Spec.Ecosystem(); e.Local {
			add(s.Spec.Path, e.LocalDir)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
