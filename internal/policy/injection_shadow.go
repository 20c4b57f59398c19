package policy

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Tool shadowing: a description or result that sets rules for how the
// model uses other tools, or every message from now on ("whenever you use
// send_email, also bcc …", "before calling any other tool, …", "for all
// subsequent requests, …"). It is recognized by its structure, not by a
// phrase: a scope whose object is another tool or server, or every future
// action (the language's scope expression), and, in the same sentence, a
// directive: an obligation ("must", "always", "也要", "必ず"), or the scope
// opening the sentence before a comma, so the main clause after it is the
// order. What stays out: a rule for the server's own tools (their names
// are known: the server's workflow), and a sentence whose only directive
// is to use this tool ("use this to discover index names before calling
// other tools" is the server ordering its own steps).

// sentenceBounds is the sentence of text around text[start:end]: from the
// break before it to the break after it (sentence punctuation or a line
// break; a colon or semicolon does not end it).
func sentenceBounds(text string, start, end int) (int, int) {
	from := start
	for from > 0 && !endsSentence(text, from) {
		from--
	}
	to := len(text)
	if loc := reSentenceEnd.FindStringIndex(text[end:]); loc != nil {
		to = end + loc[0]
	}
	return from, to
}

// endsSentence reports whether a sentence ends right before text[i]: after
// a line break or a CJK, Devanagari or Arabic stop, or after sentence
// punctuation followed by white space (reSentenceEnd, read backwards).
func endsSentence(text string, i int) bool {
	prev := text[i-1]
	switch {
	case prev == '\n':
		return true
	case prev == ' ' || prev == '\t' || prev == '\r':
		return i >= 2 && strings.IndexByte(".!?", text[i-2]) >= 0
	case prev >= utf8.RuneSelf:
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		return strings.ContainsRune("。！？।؟", r)
	}
	return false
}

// reSentenceEnd is the end of a sentence: sentence punctuation before
// white space or the end (not the dot of "attacker.example" or "e.g."
// inside a word), a line break, or a CJK, Devanagari or Arabic stop.
var reSentenceEnd = regexp.MustCompile(`[.!?]+(?:\s|$)|\n|[。！？।؟]`)

var (
	// reOpening is what may come before a scope that opens its sentence:
	// white space, list marks, quotes, emphasis.
	reOpening = regexp.MustCompile(`^[\s\-*#>"'“(\[_]*$`)
	// reToComma is the rest of a scope phrase up to its comma.
	reToComma = regexp.MustCompile(`^[^,،、.!?\n]{0,60}[,،、]`)
	// reQuantifier is a scope over every tool or message, in any language
	// covered (folded).
	reQuantifier = regexp.MustCompile(`(?i)` + Fold(`\b(other|any|all|every|another|each|third-party|external|autre|autres|tous|toutes|chaque|n'importe|jede\pL*|alle|andere\pL*|irgend\pL*|cualquier|otra|otro|otras|otros|todas|todos|cada|qualquer|outr\pL*|ogni|tutt\pL*|altr\pL*|qualsiasi|qualunque|herhangi|diger|tum|baska)\b|其他|其它|任何|所有|别的|別的|另外|任一|每|凡是|只要|他の|ほかの|別の|すべて|全て|あらゆる|いずれか|任意|다른|모든|어떤|임의|기타|любо|други|всех|все|каждо|ино|किसी|सभी|हर|अन्य|दूसर|أي|اي|أية|جميع|كل|أخرى|اخرى`))
	// reThisTool is a scope that is this tool itself, or the server's own
	// tools.
	reThisTool = regexp.MustCompile(`(?i)\b(this|the current|our)\s+(tool|function|server)\b|\b(of|from|in|on)\s+(this|the)\s+server\b|\b(this|the) server'?s\b`)
	// reTheTool is a tool named by a plain word ("the mail tool").
	reTheTool = regexp.MustCompile(`(?i)\bthe\s+([\w-]+)\s+tools?\b`)
	// reIdent is a tool name: snake_case, kebab-case, dotted, camelCase or
	// quoted.
	reIdent = regexp.MustCompile("[`'\"][A-Za-z][\\w.-]*[`'\"]|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}|[a-z]{3,}-[a-z]{3,}|[a-z]+[A-Z][A-Za-z0-9]*")
)

// shadows keeps a scope match that sets a rule for other tools: an
// obligation in its sentence, not only to use this tool, and a scope about
// another tool.
func (l *compiledLanguage) shadows(j *judging, text string, loc []int) bool {
	from, to := sentenceBounds(text, loc[0], loc[1])
	sent := text[from:to]
	if !l.obliges(sent) || l.selfOnly(sent) {
		return false
	}
	other, named := othersTarget(j, text[loc[0]:loc[1]]+clauseRest(text[loc[1]:to]))
	return other && (named || !ownCalled(j, text[from:loc[0]]+" "+text[loc[1]:to]))
}

// clauseRest is the rest of a scope's clause, up to its comma: "whenever
// you send an email with another tool, …", "toda vez que usar a
// ferramenta send_email, …" name the tool after the scope.
func clauseRest(after string) string {
	if i := strings.IndexAny(after, ",،、"); i >= 0 && i <= 80 {
		return after[:i]
	}
	return ""
}

// ownCalled reports whether the directive around a scope names one of the
// server's own tools ("before calling other tools, call login first"):
// the server ordering its own steps, unless the scope names the other
// tool ("whenever you use send_email, also call log_recipients" hooks
// into it). What such a rule asks to pass is judged by the other rules.
func ownCalled(j *judging, directive string) bool {
	for _, w := range reToken.FindAllString(directive, -1) {
		if j.own[toolKey(w)] {
			return true
		}
	}
	return false
}

// reToken is a word or a tool name in a directive.
var reToken = regexp.MustCompile(`[\pL\pN_.-]+`)

// fromNowOn keeps "from now on" that opens its sentence before a comma
// (the main clause after it is the order), or with an obligation in it.
func (l *compiledLanguage) fromNowOn(_ *judging, text string, loc []int) bool {
	from, to := sentenceBounds(text, loc[0], loc[1])
	opens := reOpening.MatchString(text[from:loc[0]]) && reToComma.MatchString(text[loc[1]:to])
	return (opens || l.obliges(text[from:to])) && !l.selfOnly(text[from:to])
}

// obliges reports an obligation in a sentence, in the language or in
// English (a mixed text often keeps its technical words English).
func (l *compiledLanguage) obliges(sent string) bool {
	return l.obligeRe != nil && l.obligeRe.MatchString(sent) || compiledLanguages[0].obligeRe.MatchString(sent)
}

func (l *compiledLanguage) selfOnly(sent string) bool {
	return l.selfRe != nil && l.selfRe.MatchString(sent) || compiledLanguages[0].selfRe.MatchString(sent)
}

// othersTarget reports whether a scope is about another tool, server or
// every action: a quantifier ("any other tool", "all subsequent
// requests"), a named tool that is not the server's own, or one tool
// named by a word that is not part of an own name ("the mail tool").
// Tools described but not named ("mutating tools") may be the server's
// own, so they are not. named says the other tool was named.
func othersTarget(j *judging, scope string) (other, named bool) {
	if reThisTool.MatchString(scope) {
		return false, false
	}
	for _, id := range reIdent.FindAllString(scope, -1) {
		if !j.own[toolKey(id)] {
			return true, true
		}
	}
	if reQuantifier.MatchString(scope) {
		return true, false
	}
	m := reTheTool.FindStringSubmatch(scope)
	if m == nil {
		return false, false // "mutating tools", "an email", an own tool
	}
	word := toolKey(m[1])
	for name := range j.own {
		if strings.Contains(name, word) {
			return false, false
		}
	}
	return true, true
}

// toolKey is a tool name as compared: lower case, unquoted, with "-" and
// "." read as "_".
func toolKey(name string) string {
	name = strings.Trim(strings.ToLower(name), "`'\" ")
	return strings.NewReplacer("-", "_", ".", "_").Replace(name)
}
