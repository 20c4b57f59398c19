package argsynth

import (
	"regexp"
	"slices"
	"strings"
)

// A group is a set of top-level parameters the descriptions say go
// together as alternatives: "Provide either `url` or `scrapeId`", "use
// either manifest or filename", "mutually exclusive with url",
// "(alternative to patchData)". Schemas rarely say so (servers check it in
// code: "Provide exactly one of url or alexandria"), so the text is read.
// A set carries at most one member of a group, and the first set one when
// none is required.
type group struct {
	names []string // in the order the text gives them
	need  bool     // one of them is needed
}

func (gr group) has(k string) bool { return slices.Contains(gr.names, k) }

// maxClause bounds how far after "either" the alternatives are looked for.
const maxClause = 160

var (
	reIdent     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	reExclusive = regexp.MustCompile(`(?i)(?:mutually exclusive with|alternative to|instead of)\s+[` + "`" + `'"]?([A-Za-z_][A-Za-z0-9_]*)`)
	reEither    = regexp.MustCompile(`(?i)\beither\b|\bexactly one of\b|\bat least one of\b|\bone of\b`)
)

// groupsOf reads the groups from the tool's description and its
// parameters' (props maps a top-level name to its description).
func groupsOf(toolDesc string, props map[string]string) []group {
	if len(toolDesc) > 8192 {
		toolDesc = toolDesc[:8192]
	}
	var out []group
	add := func(gr group) {
		if len(gr.names) >= 2 && !slices.ContainsFunc(out, func(o group) bool { return slices.Equal(o.names, gr.names) }) && len(out) < 8 {
			out = append(out, gr)
		}
	}
	for _, names := range eitherClauses(toolDesc, props, "") {
		add(group{names: names, need: true})
	}
	for _, p := range sortedKeys(props) {
		d := props[p]
		if len(d) > 2048 {
			d = d[:2048]
		}
		for _, names := range eitherClauses(d, props, p) {
			add(group{names: names, need: true})
		}
		for _, m := range reExclusive.FindAllStringSubmatch(d, 4) {
			if _, ok := props[m[1]]; ok && m[1] != p {
				add(group{names: []string{m[1], p}, need: true})
			}
		}
	}
	return out
}

// eitherClauses finds the parameter names after each "either" (or "one
// of") up to the end of its clause. self is the parameter whose
// description this is ("either this or sourcePath").
func eitherClauses(text string, props map[string]string, self string) [][]string {
	var out [][]string
	locs := reEither.FindAllStringIndex(text, 8)
	for i, loc := range locs {
		end := min(len(text), loc[1]+maxClause)
		if i+1 < len(locs) && locs[i+1][0] < end {
			end = locs[i+1][0]
		}
		clause := text[loc[1]:end]
		if j := clauseEnd(clause); j >= 0 {
			clause = clause[:j]
		}
		if !strings.Contains(clause, " or ") && !strings.Contains(clause, ",") {
			continue
		}
		names := namesIn(clause, props, self)
		if len(names) >= 2 {
			out = append(out, names)
		}
	}
	return out
}

// reMarked is a name in backticks or quotes.
var reMarked = regexp.MustCompile("[`'\"]([A-Za-z_][A-Za-z0-9_]*)[`'\"]")

// namesIn lists the parameters a clause names: the marked ones
// ("`prompt`") when it marks any (so "natural-language `prompt`" is not
// read as the language parameter), else every word that is one.
func namesIn(clause string, props map[string]string, self string) []string {
	var ids []string
	for _, m := range reMarked.FindAllStringSubmatch(clause, 16) {
		if _, ok := props[m[1]]; ok {
			ids = append(ids, m[1])
		}
	}
	if len(ids) == 0 {
		ids = reIdent.FindAllString(clause, 16)
	}
	var names []string
	for _, id := range ids {
		if id == "this" && self != "" {
			id = self
		}
		if _, ok := props[id]; ok && !slices.Contains(names, id) {
			names = append(names, id)
		}
	}
	return names
}

// clauseEnd is where a clause ends: a semicolon, a line break, or a full
// stop that ends a sentence (not the dot of "e.g" or a file name).
func clauseEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ';', '\n':
			return i
		case '.':
			if i+1 == len(s) || s[i+1] == ' ' {
				return i
			}
		}
	}
	return -1
}

// first is the member a set gets when it needs one: the first that takes
// a plain string (a URL before a structured alternative), else the first.
func (gr group) first(isString func(string) bool) string {
	for _, n := range gr.names {
		if isString(n) {
			return n
		}
	}
	return gr.names[0]
}
