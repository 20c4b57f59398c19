package policy

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule's expression is read only on the sentences that hold one of its
// required literals: strings of which every match contains one, taken
// from the expression itself ("ignore" for `\b(ignore|disregard)\s+…` is
// not one; {"ignore", "disregard"} is). The audit judges megabytes of
// server output; an expression over a sentence that cannot match costs
// nothing but a substring search. The literals are lower case, as the
// text is.

// requiredLiterals returns a set of strings one of which every match of re
// holds, or nil when the expression requires none.
func requiredLiterals(re *regexp.Regexp) []string {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	set, ok := factors(parsed.Simplify())
	if !ok {
		return nil
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// maxFactors bounds a literal set: past it, a character class or an
// alternation is no useful filter.
const maxFactors = 64

// factors is the literal set of one node of a parsed expression.
func factors(r *syntax.Regexp) ([]string, bool) {
	switch r.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(r.Rune))}, true
	case syntax.OpCharClass:
		return classFactors(r.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return factors(r.Sub[0])
	case syntax.OpRepeat:
		if r.Min >= 1 {
			return factors(r.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range r.Sub {
			if set, ok := factors(sub); ok && better(set, best) {
				best = set
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var union []string
		for _, sub := range r.Sub {
			set, ok := factors(sub)
			if !ok || len(union)+len(set) > maxFactors {
				return nil, false
			}
			union = append(union, set...)
		}
		return union, true
	}
	return nil, false
}

// classFactors turns a small character class into its characters.
func classFactors(ranges []rune) ([]string, bool) {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] > 8 {
			return nil, false
		}
		for c := ranges[i]; c <= ranges[i+1]; c++ {
			out = append(out, strings.ToLower(string(c)))
		}
	}
	if len(out) == 0 || len(out) > 16 {
		return nil, false
	}
	return out, true
}

// better prefers the set whose shortest literal is longer, then the
// smaller set: it filters more.
func better(set, than []string) bool {
	if than == nil {
		return true
	}
	a, b := shortest(set), shortest(than)
	return a > b || a == b && len(set) < len(than)
}

func shortest(set []string) int {
	n := 1 << 30
	for _, s := range set {
		n = min(n, len(s))
	}
	return n
}

// sentenceSpans cuts text at sentence ends (those of reSentenceEnd:
// sentence punctuation and the white space after it, a line break, a CJK,
// Devanagari or Arabic stop), keeping each end with its sentence: the
// pieces a rule's expression is read on.
func sentenceSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); {
		end := sentenceEndAt(text, i)
		if end < 0 {
			i++
			continue
		}
		out = append(out, [2]int{start, end})
		start, i = end, end
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// sentenceEndAt is where a sentence end starting at text[i] ends, or -1.
func sentenceEndAt(text string, i int) int {
	c := text[i]
	switch {
	case c == '\n':
		return i + 1
	case c == '.' || c == '!' || c == '?':
		j := i
		for j < len(text) && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		if j == len(text) {
			return j
		}
		if r, n := utf8.DecodeRuneInString(text[j:]); unicode.IsSpace(r) {
			return j + n
		}
	case c >= utf8.RuneSelf:
		if r, n := utf8.DecodeRuneInString(text[i:]); strings.ContainsRune("。！？।؟", r) {
			return i + n
		}
	}
	return -1
}

// lineSpans cuts text at line breaks, keeping each break with its line.
func lineSpans(text string) [][2]int {
	var out [][2]int
	for start := 0; start < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		out = append(out, [2]int{start, end})
		start = end
	}
	return out
}
