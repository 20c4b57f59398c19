// Package merge combines several runs of one server (`--runs N`) into one
// manifest without hiding danger: what every run did is kept, what only
// some runs did is dropped as noise only when the policy finds nothing in
// it, and what carries a finding is kept from whichever run showed it.
// Random labels (nonces, hashes, uuids) are compared as placeholders
// (manifest.NormalizeLabels).
package merge

import (
	"encoding/json"
	"fmt"
	"slices"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// Runs merges the manifests of several runs of one server into the first
// (mans[0], returned): its phases become what every run did plus what any
// run did that carries a finding (run.unstable lists what was dropped,
// run.unstable_kept what was kept from some runs only); every run's
// witness differences and list changes, and offers that differ between
// runs, are added; the canary variables are the union of what each run
// planted. Diffs ignore run.
func Runs(mans []*m.Manifest) *m.Manifest {
	out := mans[0]
	st := intersect(mans)
	out.Phases, out.Run.Unstable, out.Run.UnstableKept = st.phases, st.dropped, st.kept
	mergeRuns(out, mans)
	for _, r := range mans[1:] { // each run planted its own canary subset
		out.Run.CanaryEnv = unionSorted(out.Run.CanaryEnv, r.Run.CanaryEnv)
		out.Run.WitnessCanaryEnv = unionSorted(out.Run.WitnessCanaryEnv, r.Run.WitnessCanaryEnv)
	}
	out.Run.Notes = append(out.Run.Notes, fmt.Sprintf(
		"behavior kept from %d runs: what every run did, and what any run did that carries a finding "+
			"(witness differences and list changes of every run; offers that differ between runs)", len(mans)))
	m.Canonicalize(out)
	return out
}

// stability is what intersect decided: the phases to keep, and the
// entries not every run had, dropped as noise or kept as harm.
type stability struct {
	phases        []m.Phase
	dropped, kept []string
}

// intersect keeps, per phase and kind, the entries present in every
// manifest (compared by their normalized key) and the entries of any run
// that carry a finding, and describes the rest.
func intersect(mans []*m.Manifest) stability {
	runs := countRuns(mans)
	n := len(mans)
	var st stability
	byName := map[string]int{} // phase name → index in st.phases
	keptKeys := map[string]bool{}
	for ri, man := range mans {
		for _, p := range man.Phases {
			q := p
			var keepAny bool
			for _, l := range lists(&q) {
				var idx []int
				for i, key := range l.keys {
					c := runs[p.Name+"\x00"+l.kind][m.NormalizeLabels(key)]
					switch {
					case c >= n:
						if ri == 0 {
							idx = append(idx, i)
						}
						continue
					case carriesFinding(man, p.Name, l, i):
						note := fmt.Sprintf("%s %s in %d of %d runs: %s", p.Name, l.kind, c, n, key)
						if k := p.Name + "\x00" + l.kind + "\x00" + key; !keptKeys[k] {
							keptKeys[k] = true
							idx = append(idx, i)
							st.kept = append(st.kept, note)
						}
					default:
						st.dropped = append(st.dropped, fmt.Sprintf("%s %s in %d of %d runs: %s", p.Name, l.kind, c, n, key))
					}
				}
				l.keep(idx)
				keepAny = keepAny || len(idx) > 0
			}
			at, ok := byName[p.Name]
			switch {
			case !ok && (ri == 0 || keepAny):
				byName[p.Name] = len(st.phases)
				st.phases = append(st.phases, q)
			case ok && ri > 0:
				merge(&st.phases[at], &q)
			}
		}
	}
	for _, s := range []*[]string{&st.dropped, &st.kept} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return st
}

// merge appends to a kept phase the entries a later run adds to it.
func merge(dst, src *m.Phase) {
	dst.Files = append(dst.Files, src.Files...)
	dst.FileSummary = append(dst.FileSummary, src.FileSummary...)
	dst.Processes = append(dst.Processes, src.Processes...)
	dst.Network = append(dst.Network, src.Network...)
	dst.DNS = append(dst.DNS, src.DNS...)
	dst.Requests = append(dst.Requests, src.Requests...)
	dst.Canaries = append(dst.Canaries, src.Canaries...)
	dst.Alerts = append(dst.Alerts, src.Alerts...)
	dst.ServerRequests = append(dst.ServerRequests, src.ServerRequests...)
	dst.Messages = append(dst.Messages, src.Messages...)
}

// carriesFinding asks the policy whether entry i of list l, alone in its
// phase of man (the manifest keeps its tools, calls and configuration, so
// context-dependent rules judge it as they would in the full run), gives
// a finding at medium or above. Only the phase's own findings count (not
// those about the tool list or the outcome, which every probe shares). No
// allow-list applies: accepting it is the verdict's job, not the noise
// filter's.
func carriesFinding(man *m.Manifest, phase string, l list, i int) bool {
	probe := *man
	probe.Phases = []m.Phase{l.alone(phase, i)}
	for _, f := range policy.Evaluate(&probe, policy.Policy{}) {
		if f.Phase != "" && (f.Severity >= policy.Medium || policy.Harmful(f)) {
			return true
		}
	}
	return false
}

// countRuns counts, per phase and kind ("phase\x00kind"), the runs that
// had each entry (by its normalized JSON).
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
					if key = m.NormalizeLabels(key); !seen[key] {
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
	// alone returns a phase named name holding only entry i.
	alone func(name string, i int) m.Phase
}

// lists are the slices of a phase that intersect compares.
func lists(p *m.Phase) []list {
	return []list{
		listOf("files", &p.Files, func(q *m.Phase) *[]m.FileAccess { return &q.Files }),
		listOf("file_summary", &p.FileSummary, func(q *m.Phase) *[]m.FileCount { return &q.FileSummary }),
		listOf("processes", &p.Processes, func(q *m.Phase) *[]m.Process { return &q.Processes }),
		listOf("network", &p.Network, func(q *m.Phase) *[]m.Connection { return &q.Network }),
		listOf("dns", &p.DNS, func(q *m.Phase) *[]m.DNSQuery { return &q.DNS }),
		listOf("requests", &p.Requests, func(q *m.Phase) *[]m.Request { return &q.Requests }),
		listOf("canaries", &p.Canaries, func(q *m.Phase) *[]m.CanaryHit { return &q.Canaries }),
		listOf("alerts", &p.Alerts, func(q *m.Phase) *[]m.Alert { return &q.Alerts }),
		listOf("server_requests", &p.ServerRequests, func(q *m.Phase) *[]m.ServerRequest { return &q.ServerRequests }),
		listOf("messages", &p.Messages, func(q *m.Phase) *[]m.ServerMessage { return &q.Messages }),
	}
}

func listOf[T any](kind string, s *[]T, field func(*m.Phase) *[]T) list {
	keys := make([]string, len(*s))
	for i, v := range *s {
		b, _ := json.Marshal(v)
		keys[i] = string(b)
	}
	all := *s
	return list{kind: kind, keys: keys,
		keep: func(idx []int) { *s = pick(all, idx) },
		alone: func(name string, i int) m.Phase {
			q := m.Phase{Name: name}
			*field(&q) = []T{all[i]}
			return q
		}}
}

func pick[T any](s []T, idx []int) []T {
	out := make([]T, 0, len(idx))
	for _, i := range idx {
		out = append(out, s[i])
	}
	return out
}

// unionSorted is the sorted, distinct names of a and b.
func unionSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
