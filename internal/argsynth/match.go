package argsynth

import (
	"slices"
	"strings"
)

// Scores of a pool entry for a parameter; a reference is made at
// minScore or more.
const (
	minScore = 2
	// scoreSame: the same compound name ("pageId" and "page_id").
	scoreSame = 3
)

// match finds the pool entry a parameter asks for: the best-scoring one,
// on a tie from a creator's call (a process start_process made, not the
// server's own pid that get_config shows), then from the latest call, the
// first field of that call. A tool's own results are not fed back to it
// (a creator would create the same thing again).
func (p *Pool) match(key, desc string, tc *toolCtx, tool string) (entry, bool) {
	pw := words(key)
	if len(pw) == 0 {
		return entry{}, false
	}
	toolNouns := nounSet(nounsOf(words(tool)))
	var best entry
	bestScore := 0
	for _, e := range p.entries {
		if e.tool == tool {
			continue
		}
		s := score(pw, desc, toolNouns, e)
		made, bestMade := verbRole(words(e.tool)) == Creator, verbRole(words(best.tool)) == Creator
		if s > bestScore || s == bestScore && s > 0 && e.call != best.call && (made && !bestMade || made == bestMade && e.seq > best.seq) {
			best, bestScore = e, s
		}
	}
	return best, bestScore >= minScore
}

// score rates how well an entry fits a parameter with words pw.
//
//   - the same compound name (pageId, page_id): 3;
//   - the same last word with a shared noun (entityName and
//     entities[0].name; id of get_page and id of create_page's result): 2;
//   - a parameter that is not itself an id word but whose description
//     asks for one ("The name of the entity where the relation starts"
//     for from): 2.
func score(pw []string, desc string, toolNouns []string, e entry) int {
	ew := words(e.key)
	if len(ew) == 0 {
		return 0
	}
	psuf, esuf := singular(pw[len(pw)-1]), singular(ew[len(ew)-1])
	enouns := nounSet(slices.Concat(ew[:len(ew)-1], e.nouns))
	if len(pw) > 1 && len(ew) > 1 && strings.Join(pw, "") == strings.Join(ew, "") {
		return scoreSame
	}
	if !slices.Contains(idWords, psuf) {
		// from, to, source, parent: the description says what it names.
		for _, n := range enouns {
			if mentions(desc, esuf, n) {
				return minScore
			}
		}
		return 0
	}
	if psuf != esuf {
		return 0
	}
	pn := nounSet(pw[:len(pw)-1])
	if len(pn) > 0 {
		if shares(pn, enouns) {
			return minScore
		}
		return 0
	}
	if shares(toolNouns, enouns) || slices.ContainsFunc(enouns, func(n string) bool { return mentions(desc, esuf, n) }) {
		return minScore
	}
	return 0
}

// mentions reports whether a description speaks of a noun's id word: "the
// name of the entity", "entity name", "the entity's name".
func mentions(desc, suffix, noun string) bool {
	if desc == "" || noun == "" {
		return false
	}
	return strings.Contains(desc, suffix+" of the "+noun) || strings.Contains(desc, noun+" "+suffix) ||
		strings.Contains(desc, noun+"'s "+suffix) || strings.Contains(desc, suffix+" of "+noun)
}

func shares(a, b []string) bool {
	return slices.ContainsFunc(a, func(x string) bool { return slices.Contains(b, x) })
}
