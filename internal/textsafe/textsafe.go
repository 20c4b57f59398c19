// Package textsafe is the one home for printing hostile text. Everything a
// sandboxed server controls — file names, host names, versions, tool
// descriptions, error messages, output — passes through it at print time
// in every renderer (terminal, Markdown, HTML, SARIF, annotations), so an
// escape sequence cannot repaint a terminal into a fake verdict, a bidi
// override cannot reorder a line, and a cut never splits a character.
package textsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// dangerous reports runes that change how surrounding text is displayed:
// C0/C1 controls, bidi controls, line and paragraph separators, and
// invisible formatting characters (zero-width joiners, BOM, tag chars).
func dangerous(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control) || unicode.Is(unicode.Cf, r) ||
		r == '\u2028' || r == '\u2029'
}

// Clean makes s valid UTF-8 without dangerous runes. Newlines and tabs are
// kept (for multi-line blocks); every other dangerous rune becomes a
// visible escape such as \x1b or \u202e, so a reader sees that it was
// there; invalid bytes become U+FFFD.
func Clean(s string) string { return clean(s, true) }

// Line is Clean for single-line fields: newlines and tabs are escaped too,
// and the result is cut to max bytes (0: no limit) on a rune boundary.
func Line(s string, max int) string { return Clip(clean(s, false), max) }

func clean(s string, keepLines bool) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(unicode.ReplacementChar)
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case dangerous(r):
			b.WriteString(escape(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain is the fast path: printable ASCII only.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func escape(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\t':
		return `\t`
	case r == '\r':
		return `\r`
	case r < 0x100:
		return `\x` + pad(strconv.FormatInt(int64(r), 16), 2)
	case r < 0x10000:
		return `\u` + pad(strconv.FormatInt(int64(r), 16), 4)
	}
	return `\U` + pad(strconv.FormatInt(int64(r), 16), 8)
}

func pad(s string, n int) string { return strings.Repeat("0", max(0, n-len(s))) + s }

// Clip cuts s to at most max bytes plus an ellipsis, never inside a
// character. max <= 0 means no limit. It does not clean.
func Clip(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	return s[:runeCut(s, max)] + Ellipsis
}

// runeCut is the largest index at most max that starts a rune of s
// (len(s) > max).
func runeCut(s string, max int) int {
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

// Tail keeps the last max bytes of s after an ellipsis, never inside a
// character. It does not clean.
func Tail(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := len(s) - max
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return Ellipsis + s[cut:]
}

// OneLine folds runs of white space into single spaces, cleans and clips:
// for reasons and summaries built from multi-line output.
func OneLine(s string, max int) string {
	return Line(strings.Join(strings.Fields(s), " "), max)
}
