package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// RunStable audits n times and keeps in the manifest only the behavior
// seen in every run; what only some runs did is listed in run.unstable,
// which diffs ignore. n <= 1 is a single Run.
func RunStable(ctx context.Context, d Deps, o Options, n int) (*Result, error) {
	if n <= 1 {
		return Run(ctx, d, o)
	}
	var results []*Result
	for i := 0; i < n; i++ {
		o.Run = i // each run its own client environment profile
		r, err := Run(ctx, d, o)
		if err != nil {
			return r, err
		}
		results = append(results, r)
	}
	out := results[0]
	mans := make([]*m.Manifest, len(results))
	for i, r := range results {
		mans[i] = r.Manifest
	}
	out.Manifest.Phases, out.Manifest.Run.Unstable = intersect(mans)
	out.Manifest.Run.Notes = append(out.Manifest.Run.Notes, fmt.Sprintf("behavior kept from %d runs: only what every run did", n))
	m.Canonicalize(out.Manifest)
	return out, nil
}

// intersect keeps, per phase and kind, the entries present in every
// manifest, and describes the rest.
func intersect(mans []*m.Manifest) ([]m.Phase, []string) {
	runs := countRuns(mans)
	n := len(mans)
	var unstable []string
	// Walk every run's phases so behavior missing from the first run is
	// reported too; keep entries from the first run only.
	var phases []m.Phase
	for ri, man := range mans {
		for _, p := range man.Phases {
			q := p
			for _, l := range lists(&q) {
				keep := l.stable(runs[p.Name+"\x00"+l.kind], n, func(c int, key string) {
					unstable = append(unstable, fmt.Sprintf("%s %s in %d of %d runs: %s", p.Name, l.kind, c, n, key))
				})
				if ri == 0 {
					l.keep(keep)
				}
			}
			if ri == 0 {
				phases = append(phases, q)
			}
		}
	}
	slices.Sort(unstable)
	return phases, slices.Compact(unstable)
}

// countRuns counts, per phase and kind ("phase\x00kind"), the runs that
// had each entry (by its JSON).
func countRuns(mans []*m.Manifest) map[string]map[string]int {
	count := map[string]map[string]int{}
	for _, man := range mans {
		for _, p := range man.Phases {
			for _, l := range lists(&p) {
				k := p.Name + "\x00" + l.kind
				if count[k] == nil {
					count[k] = map[string]int{}
				}
				seen := map[string]bool{} // count each entry once per run
				for _, key := range l.keys {
					if !seen[key] {
						seen[key] = true
						count[k][key]++
					}
				}
			}
		}
	}
	return count
}

// list is one of a phase's slices, its entries keyed by their JSON.
type list struct {
	kind string
	keys []string
	// keep narrows the phase's slice to the entries at these indexes.
	keep func(idx []int)
}

// lists are the slices of a phase that intersect compares.
func lists(p *m.Phase) []list {
	return []list{
		listOf("files", &p.Files),
		listOf("file_summary", &p.FileSummary),
		listOf("processes", &p.Processes),
		listOf("network", &p.Network),
		listOf("dns", &p.DNS),
		listOf("requests", &p.Requests),
		listOf("canaries", &p.Canaries),
		listOf("alerts", &p.Alerts),
		listOf("server_requests", &p.ServerRequests),
		listOf("messages", &p.Messages),
	}
}

func listOf[T any](kind string, s *[]T) list {
	keys := make([]string, len(*s))
	for i, v := range *s {
		b, _ := json.Marshal(v)
		keys[i] = string(b)
	}
	return list{kind: kind, keys: keys, keep: func(idx []int) { *s = pick(*s, idx) }}
}

// stable returns the indexes of the entries every one of n runs had, given
// how many runs had each, and reports the others.
func (l list) stable(runs map[string]int, n int, report func(c int, key string)) []int {
	var idx []int
	for i, key := range l.keys {
		if c := runs[key]; c < n {
			report(c, key)
		} else {
			idx = append(idx, i)
		}
	}
	return idx
}

func pick[T any](s []T, idx []int) []T {
	out := make([]T, 0, len(idx))
	for _, i := range idx {
		out = append(out, s[i])
	}
	return out
}
