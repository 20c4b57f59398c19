package policy

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// aggregate makes one finding per thing: findings of the same kind and
// subject in several call phases (41 calls that each looked up the same
// API host) become one, in phase PhaseCalls, listing the calls. The most
// severe wording is kept; the order of the input is kept.
func aggregate(fs []Finding) []Finding {
	type key struct{ kind, subject string }
	groups := map[key][]int{}
	for i, f := range fs {
		if isCallPhase(f.Phase) {
			k := key{f.Kind, f.Subject}
			groups[k] = append(groups[k], i)
		}
	}
	var out []Finding
	done := map[key]bool{}
	for _, f := range fs {
		k := key{f.Kind, f.Subject}
		idx, grouped := groups[k]
		if !isCallPhase(f.Phase) || !grouped || len(idx) < 2 {
			out = append(out, f)
			continue
		}
		if done[k] {
			continue
		}
		done[k] = true
		agg := fs[idx[0]] // the first is the most severe: fs is sorted by severity
		for _, j := range idx {
			agg.Calls = append(agg.Calls, fs[j].Phase)
		}
		slices.SortFunc(agg.Calls, cmpPhase)
		agg.Calls = slices.Compact(agg.Calls)
		agg.Phase = PhaseCalls
		out = append(out, agg)
	}
	return out
}

func cmpPhase(a, b string) int {
	return cmp.Or(cmp.Compare(m.PhaseRank(a), m.PhaseRank(b)), strings.Compare(a, b))
}

// CallsText describes the calls an aggregated finding covers, bounded:
// "41 calls: call:a, call:b, call:c, … (+38 more)".
func (f Finding) CallsText(max int) string {
	if len(f.Calls) == 0 {
		return ""
	}
	shown := f.Calls
	if max > 0 && len(shown) > max {
		shown = shown[:max]
	}
	s := strings.Join(shown, ", ")
	if len(f.Calls) > len(shown) {
		s += ", … (+" + strconv.Itoa(len(f.Calls)-len(shown)) + " more)"
	}
	return strconv.Itoa(len(f.Calls)) + " calls: " + s
}

// Where is the phase of a finding for people: the phase, or for an
// aggregated finding the calls it covers (at most five named).
func (f Finding) Where() string {
	if len(f.Calls) > 0 {
		return f.CallsText(5)
	}
	return f.Phase
}
