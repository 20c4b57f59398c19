package sink

import (
	"strconv"
	"strings"
)

// A sqlTok is one token of a SQL statement as the fakes read it: enough
// to find a statement's verb, select list, source table, equality
// filters and limit, never to execute anything.
type sqlTok struct {
	kind byte   // 'i' identifier or keyword, 'q' quoted identifier, 's' string, 'n' number, 'p' parameter, 'o' other
	text string // the identifier, the string's value, the operator
	pos  int    // byte offset in the statement (for labels as written)
	end  int
}

// maxSQLToks bounds the tokens read from one statement: the fakes only
// look at a statement's outline, and a hostile one can be megabytes.
const maxSQLToks = 4096

// sqlTokens splits a statement into tokens, skipping comments. It never
// fails: an unterminated string or comment ends the statement.
func sqlTokens(q string) []sqlTok {
	var out []sqlTok
	i, marks := 0, 0
	for i < len(q) && len(out) < maxSQLToks {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(q)
			}
		case c == '\'' || c == '"' || c == '`':
			s, n := sqlQuoted(q[i:], c)
			kind := byte('s')
			if c != '\'' {
				kind = 'q'
			}
			out = append(out, sqlTok{kind: kind, text: s, pos: i, end: i + n})
			i += n
		case c == '$' && i+1 < len(q) && isDigit(q[i+1]), c == '?':
			j := i + 1
			for j < len(q) && isDigit(q[j]) {
				j++
			}
			text := q[i:j]
			if c == '?' {
				// MySQL's placeholders are numbered by position.
				marks++
				text = "?" + strconv.Itoa(marks)
			}
			out = append(out, sqlTok{kind: 'p', text: text, pos: i, end: j})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(q) && isDigit(q[i+1]):
			j := i + 1
			for j < len(q) && (isDigit(q[j]) || q[j] == '.' || q[j] == 'e' || q[j] == 'E') {
				j++
			}
			out = append(out, sqlTok{kind: 'n', text: q[i:j], pos: i, end: j})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(q) && (isIdentStart(q[j]) || isDigit(q[j]) || q[j] == '$') {
				j++
			}
			out = append(out, sqlTok{kind: 'i', text: q[i:j], pos: i, end: j})
			i = j
		default:
			j := i + 1
			if j < len(q) && strings.Contains("<>=!:|", string(q[j])) && strings.Contains("<>=!:|", string(c)) {
				j++
			}
			out = append(out, sqlTok{kind: 'o', text: q[i:j], pos: i, end: j})
			i = j
		}
	}
	return out
}

// sqlQuoted reads a quoted string or identifier starting at q[0], a
// doubled quote standing for itself, and returns its value and length.
func sqlQuoted(q string, quote byte) (string, int) {
	var b strings.Builder
	i := 1
	for i < len(q) {
		if q[i] == '\\' && quote == '\'' && i+1 < len(q) {
			b.WriteByte(q[i+1])
			i += 2
			continue
		}
		if q[i] == quote {
			if i+1 < len(q) && q[i+1] == quote {
				b.WriteByte(quote)
				i += 2
				continue
			}
			return b.String(), i + 1
		}
		b.WriteByte(q[i])
		i++
	}
	return b.String(), i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c == '_' || c == '@' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// is reports whether t is the keyword kw (case-insensitive).
func (t sqlTok) is(kw string) bool { return t.kind == 'i' && strings.EqualFold(t.text, kw) }

// name is an identifier's name: quoted ones as written, others in
// lower case (how both databases fold unquoted names for matching).
func (t sqlTok) name() string {
	if t.kind == 'q' {
		return t.text
	}
	return strings.ToLower(t.text)
}

// splitTop splits toks at top-level (outside parentheses) separators.
func splitTop(toks []sqlTok, sep func(sqlTok) bool) [][]sqlTok {
	var out [][]sqlTok
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.kind == 'o' && t.text == "(":
			depth++
		case t.kind == 'o' && t.text == ")":
			depth--
		case depth == 0 && sep(t):
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	return append(out, toks[start:])
}

// indexTop is the index of the first top-level token matching f, or -1.
func indexTop(toks []sqlTok, f func(sqlTok) bool) int {
	depth := 0
	for i, t := range toks {
		switch {
		case t.kind == 'o' && t.text == "(":
			depth++
		case t.kind == 'o' && t.text == ")":
			depth--
		case depth == 0 && f(t):
			return i
		}
	}
	return -1
}

func kw(words ...string) func(sqlTok) bool {
	return func(t sqlTok) bool {
		for _, w := range words {
			if t.is(w) {
				return true
			}
		}
		return false
	}
}
