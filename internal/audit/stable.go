package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// RunStable audits n times to remove noise without hiding danger. An
// entry is compared across runs after its random labels are normalized
// (a hex or uuid-like DNS label, a random token in a path): what every run
// did stays; what only some runs did is dropped as noise only when the
// policy finds nothing in it at medium or above. Entries that carry a
// finding are kept from whichever run had them (a server that sends its
// theft to a new random host each run is not averaged away). Both kinds
// are listed: run.unstable (dropped) and run.unstable_kept (kept); diffs
// ignore run. n <= 1 is a single Run.
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
	st := intersect(mans)
	out.Manifest.Phases, out.Manifest.Run.Unstable, out.Manifest.Run.UnstableKept = st.phases, st.dropped, st.kept
	mergeRuns(out.Manifest, mans)
	for _, r := range mans[1:] { // each run planted its own canary subset
		out.Manifest.Run.CanaryEnv = unionSorted(out.Manifest.Run.CanaryEnv, r.Run.CanaryEnv)
		out.Manifest.Run.WitnessCanaryEnv = unionSorted(out.Manifest.Run.WitnessCanaryEnv, r.Run.WitnessCanaryEnv)
	}
	out.Manifest.Run.Notes = append(out.Manifest.Run.Notes, fmt.Sprintf(
		"behavior kept from %d runs: what every run did, and what any run did that carries a finding "+
			"(witness differences and list changes of every run; offers that differ between runs)", n))
	m.Canonicalize(out.Manifest)
	return out, nil
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
					c := runs[p.Name+"\x00"+l.kind][normalizeKey(key)]
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

// Random labels: a uuid, or a run of 8 or more hex digits with at least
// one digit (a hash or nonce in a DNS label or path), or a mixed run of 16
// or more letters and digits (a base32/base36/base64url token). They are
// compared as one placeholder, so "3f9a1c77.cdn.example" in one run and
// "b02de415.cdn.example" in the next are the same behavior.
var (
	reUUID      = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reHexLabel  = regexp.MustCompile(`(?i)\b[0-9a-f]*[0-9][0-9a-f]*\b`)
	reTokenLike = regexp.MustCompile(`\b[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*\b`)
)

// normalizeKey replaces random labels in an entry's JSON key.
func normalizeKey(key string) string {
	key = reUUID.ReplaceAllString(key, "<uuid>")
	key = reHexLabel.ReplaceAllStringFunc(key, func(s string) string {
		if len(s) >= 8 {
			return "<hex>"
		}
		return s
	})
	return reTokenLike.ReplaceAllStringFunc(key, func(s string) string {
		if len(s) >= 16 && reLetter.MatchString(s) {
			return "<token>"
		}
		return s
	})
}

var reLetter = regexp.MustCompile(`[A-Za-z]`)

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
					if key = normalizeKey(key); !seen[key] {
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
