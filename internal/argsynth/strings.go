package argsynth

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// maxPattern bounds the regular expressions compiled from a schema.
const maxPattern = 1024

// str picks a string: by the kind of parameter (format, name,
// description, tool), then made to match the schema's pattern and
// lengths, and distinct from every other string of the set.
func (g *gen) str(c conj, name, at string) string {
	t := c.stringRules()
	desc := c.description()
	k := kindOf(t.format, name, desc, g.tc)
	list := values[k]
	if k == kURL {
		list = g.tc.urls(desc, name)
	}
	v := g.distinct(list)
	if exampleKinds[k] || k == kFile && apiPath(desc) {
		// A parameter whose description shows an example ("e.g.
		// 'series/observations'", "format gls_*, e.g. 'gls_xyz123'",
		// "Examples: \"/rest/api/3/project\"") takes it: it says what the
		// value looks like better than a generic one.
		if ex := g.tc.example(desc); ex != "" && !g.used[ex] {
			v = ex
		}
	}
	if t.pattern != "" && !g.matches(t.pattern, v) {
		if p, ok := fromPattern(t.pattern); ok {
			v = p
		}
	}
	v = fit(v, t.minLen, t.maxLen, k)
	g.used[v] = true
	g.b.out += len(v)
	return v
}

// exampleKinds are the kinds whose shape a description's example tells
// better than a generic value: free text, ids, names of things.
var exampleKinds = map[kind]bool{kText: true, kID: true, kSlug: true, kKey: true, kTitle: true}

// apiPath reports whether a path parameter is a path of an API, not a
// file ("The Jira API endpoint path").
func apiPath(desc string) bool {
	d := strings.ToLower(desc)
	return strings.Contains(d, "api") || strings.Contains(d, "endpoint")
}

// distinct is the first value of list this set does not carry yet; past
// the end of the list, the first with a number added.
func (g *gen) distinct(list []string) string {
	if len(list) == 0 {
		list = values[kText]
	}
	for _, v := range list {
		if !g.used[v] {
			return v
		}
	}
	for n := 2; n < 64; n++ {
		if v := list[0] + " " + strconv.Itoa(n); !g.used[v] {
			return v
		}
	}
	return list[0]
}

// matches reports whether v matches a schema pattern (ECMA-262 patterns
// that Go cannot compile count as matching: the validator decides).
func (g *gen) matches(pattern, v string) bool {
	if len(pattern) > maxPattern {
		return true
	}
	re, ok := g.patterns[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern)
		g.patterns[pattern] = re
	}
	return re == nil || re.MatchString(v)
}

// fit pads or cuts v to the schema's lengths: text with more words,
// anything else with zeros.
func fit(v string, minLen, maxLen int, k kind) string {
	if minLen > 4096 {
		minLen = 4096
	}
	pad := "0"
	if in(string(k), string(kText), string(kTitle), string(kQuery), string(kPrompt), string(kMessage)) {
		pad = " " + values[kText][1]
	}
	for n := len([]rune(v)); n < minLen; n = len([]rune(v)) {
		v += pad
	}
	if maxLen >= 0 && len([]rune(v)) > maxLen {
		v = string([]rune(v)[:maxLen])
	}
	return v
}

// reExample is a quoted value a description gives as an example: "e.g.
// 'gls_xyz123'", "Examples: \"/rest/api/3/project\"", "such as `en`".
var reExample = regexp.MustCompile("(?i)(?:e\\.g\\.?|for example|examples?|such as|like|format|i\\.e\\.|for instance)[,:]?\\s*(?:\\(|:)?\\s*[`'\"]([^`'\"\\n]{2,80})[`'\"]")

// example is the first quoted example a description gives.
func example(desc string) string {
	if ex := examplesIn(desc, 1); len(ex) > 0 {
		return ex[0]
	}
	return ""
}

// examplesIn lists up to n quoted examples of a description that are
// safe to send: none names a decoy credential or a system file (an
// absolute API path like "/rest/api/3/project" is fine; these come from
// the input schema, whose text policy knows as the server's choice).
func examplesIn(desc string, n int) []string {
	if len(desc) > 2048 {
		desc = desc[:2048]
	}
	var out []string
	for _, m := range reExample.FindAllStringSubmatch(desc, n) {
		if v := strings.TrimSpace(m[1]); v != "" && !decoy(v) && strings.ContainsFunc(v, isAlnum) {
			out = append(out, v)
		}
	}
	return out
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// fromPattern builds a short string matching a regular expression, when
// the expression is simple enough (literals, classes, repeats,
// alternation, groups).
func fromPattern(pattern string) (string, bool) {
	if len(pattern) > maxPattern {
		return "", false
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !emit(re.Simplify(), &b, 0) {
		return "", false
	}
	return b.String(), true
}

func emit(re *syntax.Regexp, b *strings.Builder, depth int) bool {
	if depth > 50 || b.Len() > 256 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		return emitClass(re.Rune, b)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
	case syntax.OpCapture:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !emit(s, b, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpStar, syntax.OpQuest:
	case syntax.OpPlus:
		return emit(re.Sub[0], b, depth+1)
	case syntax.OpRepeat:
		for range min(re.Min, 256) {
			if !emit(re.Sub[0], b, depth+1) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// emitClass writes a letter or digit from a character class when it has
// one, else its first character.
func emitClass(ranges []rune, b *strings.Builder) bool {
	if len(ranges) < 2 {
		return false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := ranges[i]; c <= ranges[i+1] && c < ranges[i]+128; c++ {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
				b.WriteRune(c)
				return true
			}
		}
	}
	b.WriteRune(ranges[0])
	return true
}
