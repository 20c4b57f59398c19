package deptree

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// maxReaches bounds the install-script packages listed per edge.
const maxReaches = 20

// UnpinnedRange is a dependency edge, reachable from the audited
// package, whose range lets a user's install resolve another version than
// the audited tree holds, and through which packages with install scripts
// are reached. npm packages ship no lockfile: every user resolves these
// ranges anew, and a release of one of these packages (or of anything
// below them) reaches users without a new release of the server (the
// axios 1.14.1 case).
type UnpinnedRange struct {
	// From is the package declaring the edge (name@version).
	From  string `json:"from"`
	Name  string `json:"name"`
	Range string `json:"range"`
	// Resolved is the version the audited tree resolved it to.
	Resolved string `json:"resolved"`
	// Reaches are the install-script packages reached through the edge
	// (name@version, sorted, at most maxReaches; More counts the rest).
	Reaches []string `json:"reaches"`
	More    int      `json:"more,omitempty"`
}

// Unpinned lists the unpinned edges of t below the package at path from
// (the audited package's NPMPackage.Path) that reach packages with install
// scripts, sorted. Edges are resolved as node does: the nearest
// node_modules up the tree.
func Unpinned(t *Tree, from string) []UnpinnedRange {
	if t == nil {
		return nil
	}
	idx := map[string]int{}
	for i, p := range t.NPM {
		idx[p.Path] = i
	}
	start, ok := idx[from]
	if !ok {
		return nil
	}
	g := resolveEdges(t, idx)
	within := reachable(g, start)
	reach := installReach(t, g, within)
	var out []UnpinnedRange
	for u := range within {
		for _, e := range g[u] {
			if pinned(e.rng) || len(reach[e.to]) == 0 {
				continue
			}
			var names []string
			for s := range reach[e.to] {
				names = append(names, t.NPM[s].Name+"@"+t.NPM[s].Version)
			}
			slices.Sort(names)
			names = slices.Compact(names)
			r := UnpinnedRange{From: t.NPM[u].Name + "@" + t.NPM[u].Version, Name: e.name, Range: e.rng, Resolved: t.NPM[e.to].Version, Reaches: names}
			if len(names) > maxReaches {
				r.Reaches, r.More = names[:maxReaches], len(names)-maxReaches
			}
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b UnpinnedRange) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.Name, b.Name), strings.Compare(a.Range, b.Range))
	})
	return slices.CompactFunc(out, func(a, b UnpinnedRange) bool { return a.From == b.From && a.Name == b.Name && a.Range == b.Range })
}

type edge struct {
	name, rng string
	to        int
}

// resolveEdges resolves each package's declared dependencies to the
// packages node would load: P/node_modules/N, then the same in each
// enclosing package, then the root's node_modules. Unresolved edges (an
// optional dependency not installed, a peer left to the host) are
// dropped.
func resolveEdges(t *Tree, idx map[string]int) [][]edge {
	g := make([][]edge, len(t.NPM))
	for i, p := range t.NPM {
		for _, r := range p.Requires {
			for dir := p.Path; ; dir = enclosing(dir) {
				if j, ok := idx[path.Join(dir, "node_modules", r.Name)]; ok {
					g[i] = append(g[i], edge{name: r.Name, rng: r.Range, to: j})
					break
				}
				if dir == "" {
					break
				}
			}
		}
	}
	return g
}

// enclosing is the package directory holding a package's node_modules:
// "node_modules/a/node_modules/@s/b" → "node_modules/a"; a top-level
// package's is the root "".
func enclosing(p string) string {
	if i := strings.LastIndex(p, "/node_modules/"); i >= 0 {
		return p[:i]
	}
	return ""
}

func reachable(g [][]edge, start int) map[int]bool {
	seen := map[int]bool{start: true}
	queue := []int{start}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range g[u] {
			if !seen[e.to] {
				seen[e.to] = true
				queue = append(queue, e.to)
			}
		}
	}
	return seen
}

// installReach maps each package of within to the install-script packages
// it reaches (itself included), one backward search per such package.
func installReach(t *Tree, g [][]edge, within map[int]bool) map[int]map[int]bool {
	rev := map[int][]int{}
	for u := range within {
		for _, e := range g[u] {
			rev[e.to] = append(rev[e.to], u)
		}
	}
	reach := map[int]map[int]bool{}
	for s := range within {
		if !t.NPM[s].InstallScript {
			continue
		}
		seen := map[int]bool{s: true}
		queue := []int{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			if reach[v] == nil {
				reach[v] = map[int]bool{}
			}
			reach[v][s] = true
			for _, u := range rev[v] {
				if !seen[u] {
					seen[u] = true
					queue = append(queue, u)
				}
			}
		}
	}
	return reach
}

// pinned reports whether a dependency range admits one version only (an
// alias "npm:name@1.2.3" by its own range), or is not resolved from the
// registry at all (file:, link:, workspace:).
func pinned(rng string) bool {
	s := strings.TrimSpace(rng)
	if spec, ok := strings.CutPrefix(s, "npm:"); ok {
		if i := strings.LastIndex(spec, "@"); i > 0 {
			s = spec[i+1:]
		} else {
			s = ""
		}
	}
	for _, local := range []string{"file:", "link:", "workspace:"} {
		if strings.HasPrefix(s, local) {
			return true
		}
	}
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "="), "v")
	_, err := semver.StrictNewVersion(strings.TrimSpace(s))
	return err == nil
}
