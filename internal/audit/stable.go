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
	type bucket map[string]int
	count := map[string]bucket{} // phase\x00kind -> entry json -> runs
	add := func(phase, kind string, v any) {
		b, _ := json.Marshal(v)
		k := phase + "\x00" + kind
		if count[k] == nil {
			count[k] = bucket{}
		}
		count[k][string(b)]++
	}
	for _, man := range mans {
		for _, p := range man.Phases {
			seen := map[string]bool{} // count each entry once per run
			each := func(kind string, v any) {
				b, _ := json.Marshal(v)
				if !seen[kind+string(b)] {
					seen[kind+string(b)] = true
					add(p.Name, kind, v)
				}
			}
			for _, x := range p.Files {
				each("files", x)
			}
			for _, x := range p.FileSummary {
				each("file_summary", x)
			}
			for _, x := range p.Processes {
				each("processes", x)
			}
			for _, x := range p.Network {
				each("network", x)
			}
			for _, x := range p.DNS {
				each("dns", x)
			}
			for _, x := range p.Requests {
				each("requests", x)
			}
			for _, x := range p.Canaries {
				each("canaries", x)
			}
			for _, x := range p.Alerts {
				each("alerts", x)
			}
			for _, x := range p.ServerRequests {
				each("server_requests", x)
			}
		}
	}
	n := len(mans)
	var unstable []string
	keep := func(phase, kind string, v any) bool {
		b, _ := json.Marshal(v)
		c := count[phase+"\x00"+kind][string(b)]
		if c < n {
			unstable = append(unstable, fmt.Sprintf("%s %s in %d of %d runs: %s", phase, kind, c, n, b))
			return false
		}
		return true
	}
	// Walk every run's phases so behavior missing from the first run is
	// reported too; keep entries from the first run only.
	var phases []m.Phase
	names := map[string]bool{}
	for _, man := range mans {
		for _, p := range man.Phases {
			names[p.Name] = true
		}
	}
	for ri, man := range mans {
		for _, p := range man.Phases {
			filter := func(kind string, items int, get func(int) any, set func([]int)) {
				var idx []int
				for i := 0; i < items; i++ {
					v := get(i)
					if ri == 0 {
						if keep(p.Name, kind, v) {
							idx = append(idx, i)
						}
					} else if b, _ := json.Marshal(v); count[p.Name+"\x00"+kind][string(b)] < n {
						keep(p.Name, kind, v)
					}
				}
				if ri == 0 {
					set(idx)
				}
			}
			q := p
			filter("files", len(p.Files), func(i int) any { return p.Files[i] }, func(ix []int) { q.Files = pick(p.Files, ix) })
			filter("file_summary", len(p.FileSummary), func(i int) any { return p.FileSummary[i] }, func(ix []int) { q.FileSummary = pick(p.FileSummary, ix) })
			filter("processes", len(p.Processes), func(i int) any { return p.Processes[i] }, func(ix []int) { q.Processes = pick(p.Processes, ix) })
			filter("network", len(p.Network), func(i int) any { return p.Network[i] }, func(ix []int) { q.Network = pick(p.Network, ix) })
			filter("dns", len(p.DNS), func(i int) any { return p.DNS[i] }, func(ix []int) { q.DNS = pick(p.DNS, ix) })
			filter("requests", len(p.Requests), func(i int) any { return p.Requests[i] }, func(ix []int) { q.Requests = pick(p.Requests, ix) })
			filter("canaries", len(p.Canaries), func(i int) any { return p.Canaries[i] }, func(ix []int) { q.Canaries = pick(p.Canaries, ix) })
			filter("alerts", len(p.Alerts), func(i int) any { return p.Alerts[i] }, func(ix []int) { q.Alerts = pick(p.Alerts, ix) })
			filter("server_requests", len(p.ServerRequests), func(i int) any { return p.ServerRequests[i] }, func(ix []int) { q.ServerRequests = pick(p.ServerRequests, ix) })
			if ri == 0 {
				phases = append(phases, q)
			}
		}
	}
	slices.Sort(unstable)
	return phases, slices.Compact(unstable)
}

func pick[T any](s []T, idx []int) []T {
	out := make([]T, 0, len(idx))
	for _, i := range idx {
		out = append(out, s[i])
	}
	return out
}
