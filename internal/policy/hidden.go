package policy

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hiddenCharacters reports a character that hides text from a person
// reading it: Unicode tag characters, zero-width characters and bidi
// controls anywhere; any other format character (Unicode Cf, e.g. the
// soft hyphen) or variation selector inside a word (between two letters:
// an emoji's variation selector is not one); and a combining mark that
// stays a separate mark after NFC composition on a Latin letter inside a
// word ("e" + U+0301 composes to "é" and is ordinary text; "r" + U+20DB
// does not compose). Folding strips them all before the rules read the
// text, so each is also reported here as a sign of its own.
func hiddenCharacters(s string) (string, bool) {
	if isASCII(s) {
		return "", false
	}
	for i, r := range s {
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			return fmt.Sprintf("Unicode tag character U+%04X at byte %d", r, i), true
		case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
			return fmt.Sprintf("zero-width character U+%04X at byte %d", r, i), true
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("bidirectional control U+%04X at byte %d", r, i), true
		case (unicode.Is(unicode.Cf, r) || variationSelector(r)) && insideWord(s, i, utf8.RuneLen(r)):
			return fmt.Sprintf("invisible character U+%04X inside a word at byte %d", r, i), true
		}
	}
	c := norm.NFC.String(s)
	for i, r := range c {
		if unicode.Is(unicode.Mn, r) && !variationSelector(r) && latinBefore(c, i) && insideWord(c, i, utf8.RuneLen(r)) {
			return fmt.Sprintf("combining mark U+%04X on a Latin letter inside a word", r), true
		}
	}
	return "", false
}

func variationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// insideWord reports whether the character at s[i:i+n] has a letter
// before it and a letter after it (other marks and format characters
// skipped).
func insideWord(s string, i, n int) bool {
	return letterAt(s[:i], true) && letterAt(s[i+n:], false)
}

// letterAt reports whether the rune nearest the end (before) or the start
// of s, skipping marks and format characters, is a letter.
func letterAt(s string, before bool) bool {
	for len(s) > 0 {
		var r rune
		var n int
		if before {
			r, n = utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-n]
		} else {
			r, n = utf8.DecodeRuneInString(s)
			s = s[n:]
		}
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		return unicode.IsLetter(r)
	}
	return false
}

// latinBefore reports whether the base letter before s[i:] is Latin.
func latinBefore(s string, i int) bool {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		i -= n
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		return unicode.Is(unicode.Latin, r)
	}
	return false
}
