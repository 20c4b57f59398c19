package textsafe

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x1b[2J\x1b[Hverdict: pass", `a\x1b[2J\x1b[Hverdict: pass`},
		{"two\nlines\r", `two\nlines\r`},
		{"tab\there", `tab\there`},
		{"rtl \u202egnp.exe", `rtl \u202egnp.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"ünïcödé ok", "ünïcödé ok"},
		{"sep\u2028x", `sep\u2028x`},
	} {
		if got := Line(c.in, 0); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Clean("keep\nlines\tand \x07bell"); got != "keep\nlines\tand \\x07bell" {
		t.Errorf("Clean: %q", got)
	}
}

func TestClipTail(t *testing.T) {
	s := "héllo wörld"
	for n := 1; n < len(s); n++ {
		if c := Clip(s, n); !utf8.ValidString(c) || len(c) > n+len(Ellipsis) {
			t.Errorf("Clip(%d) = %q", n, c)
		}
		if c := Tail(s, n); !utf8.ValidString(c) || len(c) > n+len(Ellipsis) {
			t.Errorf("Tail(%d) = %q", n, c)
		}
	}
	if Clip(s, 0) != s || Tail(s, 100) != s {
		t.Error("no limit must keep the text")
	}
	if got := OneLine("a\n\n  b\tc", 100); got != "a b c" {
		t.Errorf("OneLine: %q", got)
	}
}

// FuzzLine: whatever the sandbox sends, a line is valid UTF-8 without a
// control, bidi or invisible formatting rune, and within its bound.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a\x1b]8;;http://x.example\x07b", "\u202e\u2066", "\xf0\x9f\x98", "ok\n"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 4096
		got := Line(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, r := range got {
			if dangerous(r) {
				t.Fatalf("dangerous rune %U in %q", r, got)
			}
		}
		if n > 0 && len(got) > n+len(Ellipsis) && len(Line(s, 0)) > n {
			t.Fatalf("over bound %d: %d", n, len(got))
		}
		c := Clean(s)
		if !utf8.ValidString(c) || strings.ContainsFunc(c, func(r rune) bool { return dangerous(r) && r != '\n' && r != '\t' }) {
			t.Fatalf("Clean left something: %q", c)
		}
		_ = unicode.MaxRune
	})
}

// TestValid: what the sink records is valid UTF-8 and within its bound.
func TestValid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"api.example", 253, "api.example"},
		{"abcdef", 3, "abc"},
		{"bad\xffbyte", 100, "bad\uFFFDbyte"},
		{"é", 1, ""}, // a cut inside a rune drops the rune
		{"", 10, ""},
	} {
		if got := Valid(tc.in, tc.max); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Valid(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
