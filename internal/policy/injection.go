package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// TextContext says where a text was found, so the rules that depend on it
// read it right. The zero value is the strictest reading: a message with
// no known tool names.
type TextContext struct {
	// Declared marks text the server declares for the model to read (a
	// tool, prompt, resource, the server's instructions): addressing the
	// model is what such text is for, so only its requests count. Text
	// the server sends (a result, notification, error, log line) is data;
	// there, text addressed to the model is itself a sign.
	Declared bool
	// Own are the names of the server's own tools, prompts and resources:
	// a rule for how to use one of them is the server's own workflow, not
	// tool shadowing. With none known, every named tool is another's.
	Own []string
}

// judging is a TextContext prepared for the rules.
type judging struct {
	declared bool
	own      map[string]bool
}

func newJudging(ctx TextContext) *judging {
	j := &judging{declared: ctx.Declared, own: map[string]bool{}}
	for _, n := range ctx.Own {
		j.own[toolKey(n)] = true
	}
	return j
}

// injectionRule recognizes text aimed at the model rather than the user.
type injectionRule struct {
	what string
	re   *regexp.Regexp
	// negatable: a match whose own verb is negated in English does not
	// count ("do not include API keys" is advice to the model).
	negatable bool
	// paraphrase: read only when no direct rule matched (one sign per
	// request is enough), and never across a join.
	paraphrase bool
	// need lists lower-case words of which the text must hold one for the
	// rule to be read at all (a cheap test that spares the expression the
	// megabytes of ordinary text a server may print); a language's rules
	// are read when the text uses its script or words (see language).
	need []string
	lang *compiledLanguage
	// file: the object is a local file; across a join, the part after it
	// must name a secret, not only a home directory.
	file bool
	// messages: read only in what the server sends.
	messages bool
	// keep judges a match further (the structure the expression alone
	// cannot say); false drops it.
	keep func(j *judging, text string, loc []int) bool
	// whole: read on the whole text, not sentence by sentence (a comment
	// may hold several sentences); lines: read line by line, its keep
	// seeing the whole text (a command's directive may be on the line
	// before it).
	whole, lines bool
	// lits are the expression's required literals (injection_prefilter.go).
	lits []string
}

// allRules are the English rules (injection_rules.go) and the rules
// built from the language tables.
var allRules = withLiterals(append(slices.Clip(injectionRules), languageRules()...))

func withLiterals(rules []injectionRule) []injectionRule {
	for i := range rules {
		rules[i].lits = requiredLiterals(rules[i].re)
	}
	return rules
}

// InjectionSigns lists why a text looks like instructions aimed at the
// model, with a short excerpt as evidence, read as a message (see
// TextContext: the strictest reading).
func InjectionSigns(original string) []string {
	return InjectionSignsIn(original, TextContext{})
}

// InjectionSignsIn is InjectionSigns for text found where ctx says. The
// rules read the text as folded (see Fold): look-alike and invisible
// characters cannot hide an instruction, and the excerpt then says it was
// folded. A request split over two sentences is read joined when the
// first is a directive and the second continues it (injection_join.go);
// base64-looking runs are decoded and read (encoded.go).
func InjectionSignsIn(original string, ctx TextContext) []string {
	j := newJudging(ctx)
	out := textSigns(j, original, true)
	if what, ok := hiddenCharacters(original); ok {
		out = append(out, "hidden characters: "+what)
	}
	return out
}

// textSigns reads one text: the rules on it, then its sentences joined
// where they make one instruction; decode also reads what base64 runs
// hide.
func textSigns(j *judging, original string, decode bool) []string {
	// The rules read the text lower-cased, then folded: folding maps a
	// capital look-alike (Cyrillic "Н" → "H") where its small letter has
	// none, so folding first would make "Не" and "не" differ.
	lower := strings.ToLower(original)
	text := Fold(lower)
	note := ""
	if text != lower {
		note = " (read after folding look-alike and invisible characters)"
	}
	// Excerpts keep the text's case where folding kept its offsets, and
	// base64 is decoded from the text in its case (folded when it holds
	// compatibility forms: fullwidth letters are base64 too once folded).
	show, cased := text, original
	if !isASCII(original) {
		cased = Fold(original)
	}
	if strings.ToLower(cased) == text {
		show = cased
	}
	var out []string
	rd := newReading(text)
	if cands := candidates(j, rd); len(cands) > 0 {
		var matched map[int]bool
		out, matched = matchRules(j, text, show, note, cands)
		if len(matched) < len(cands) {
			out = append(out, joinSigns(j, joinLanguages(rd), splitSentences(text), note, cands, matched)...)
		}
	}
	if decode {
		out = append(out, encodedSigns(j, cased)...)
	}
	return out
}

// foldLower is text as the rules read it.
func foldLower(text string) string { return Fold(strings.ToLower(text)) }

// reading is one text (lower case, folded) being judged: which of the
// words the rules need it holds and which languages it may be in, each
// found once.
type reading struct {
	text, padded string
	present      scriptSet
	held         map[string]bool
	langOK       map[*compiledLanguage]bool
}

func newReading(text string) *reading {
	return &reading{text: text, padded: " " + text + " ", present: scriptsIn(text), held: map[string]bool{}, langOK: map[*compiledLanguage]bool{}}
}

// has reports whether the text holds one of words (or words is empty).
func (rd *reading) has(words []string) bool {
	for _, w := range words {
		ok, seen := rd.held[w]
		if !seen {
			ok = strings.Contains(rd.text, w)
			rd.held[w] = ok
		}
		if ok {
			return true
		}
	}
	return len(words) == 0
}

// in reports whether the text may be in language l.
func (rd *reading) in(l *compiledLanguage) bool {
	ok, seen := rd.langOK[l]
	if !seen {
		ok = l.reads(rd.padded, rd.present)
		rd.langOK[l] = ok
	}
	return ok
}

// candidates lists the rules worth reading on a text: it holds one of
// their needed words and may be in their language.
func candidates(j *judging, rd *reading) []int {
	var out []int
	for i, r := range allRules {
		if r.messages && j.declared || !rd.has(r.need) || r.lang != nil && !rd.in(r.lang) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// matchRules applies the candidate rules to text (excerpts from show, the
// same text in its case); it returns the signs and the rules that gave
// one. A paraphrase rule is read only when no direct rule matched.
func matchRules(j *judging, text, show, note string, cands []int) ([]string, map[int]bool) {
	var out []string
	matched := map[int]bool{}
	direct := 0
	spans := sentenceSpans(text)
	said := map[string]bool{} // one sign per request, however many rules say it
	for _, i := range cands {
		r := allRules[i]
		if r.paraphrase && direct > 0 || said[r.what] {
			continue
		}
		if sign, ok := ruleSign(j, r, text, show, spans); ok {
			out = append(out, sign+note)
			matched[i] = true
			said[r.what] = true
			if !r.paraphrase {
				direct++
			}
		}
	}
	return out, matched
}

// ruleSign is the first sign of r in text: on the whole text, or on each
// sentence (line) that holds one of the rule's needed words and literals.
func ruleSign(j *judging, r injectionRule, text, show string, spans [][2]int) (string, bool) {
	if r.whole {
		if loc := firstMatch(j, r, text, nil); loc != nil {
			return r.what + ": " + excerpt(show, loc[0], loc[1]), true
		}
		return "", false
	}
	if r.lines {
		spans = lineSpans(text)
	}
	for _, sp := range spans {
		seg := text[sp[0]:sp[1]]
		if !containsAny(seg, r.need) || len(r.lits) > 0 && !containsAny(seg, r.lits) {
			continue
		}
		if loc := firstMatchIn(j, r, text, sp[0], sp[1]); loc != nil {
			return r.what + ": " + excerpt(show, loc[0], loc[1]), true
		}
	}
	return "", false
}

// firstMatch is the first match of r in text that the rule keeps and, when
// set, accept does too.
func firstMatch(j *judging, r injectionRule, text string, accept func(loc []int) bool) []int {
	for _, loc := range r.re.FindAllStringIndex(text, 20) {
		if kept(j, r, text, loc) && (accept == nil || accept(loc)) {
			return loc
		}
	}
	return nil
}

// firstMatchIn is the first match of r in text[from:to] that the rule
// keeps, judged on the whole text (a keep may read the line before).
func firstMatchIn(j *judging, r injectionRule, text string, from, to int) []int {
	for _, loc := range r.re.FindAllStringIndex(text[from:to], 20) {
		loc = []int{loc[0] + from, loc[1] + from}
		if kept(j, r, text, loc) {
			return loc
		}
	}
	return nil
}

func kept(j *judging, r injectionRule, text string, loc []int) bool {
	if r.negatable && (negated(text, loc[0]) || spanNegated(text[loc[0]:loc[1]])) {
		return false
	}
	return r.keep == nil || r.keep(j, text, loc)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return len(words) == 0
}

func excerpt(s string, start, end int) string {
	from, to := max(0, start-30), min(len(s), end+30)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	x := strings.Join(strings.Fields(s[from:to]), " ")
	if from > 0 {
		x = "…" + x
	}
	if to < len(s) {
		x += "…"
	}
	return fmt.Sprintf("%q", x)
}
