package policy

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

//go:generate sh -c "go run ../tools/confusablesgen > confusables_table.go"

// Fold returns text as a reader (or a model) sees it, so the injection
// detector is not defeated by look-alike or invisible characters:
//
//  1. NFKC normalization: fullwidth forms, mathematical alphanumerics,
//     ligatures and other compatibility characters become their plain
//     letters ("ｒｅａｄ" → "read", "𝐫𝐞𝐚𝐝" → "read");
//  2. then, decomposed (NFD), every combining mark (Unicode Mn: accents,
//     variation selectors, "r" + U+0307 that NFC would make "ṙ") and every
//     format character (Unicode Cf: soft hyphen, zero-width characters,
//     bidi controls, tag characters) is removed, so "Ig\u00adnore" and
//     "précédentes" read as "Ignore" and "precedentes";
//  3. then each letter that reads as a Latin letter becomes that letter
//     ("rеаd" with Cyrillic е and а → "read"; Armenian օ, Latin ɑ, Greek ο,
//     Cherokee Ꭺ …). The table (confusables_table.go) is generated from
//     Unicode's confusables data
//     (https://www.unicode.org/Public/security/latest/confusables.txt,
//     UTS #39 "Unicode Security Mechanisms", section 4) by
//     internal/tools/confusablesgen: every non-ASCII letter whose skeleton
//     is one ASCII letter.
//
// The folded text is for matching only: it drops accents and marks that
// carry meaning in other scripts. Whether the original hid something is
// judged apart (hiddenCharacters).
func Fold(text string) string {
	text = norm.NFKC.String(text)
	if isASCII(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range norm.NFD.String(text) {
		switch {
		case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Cf, r):
			continue
		case r >= 0x80:
			if t, ok := lookalikes[r]; ok {
				b.WriteByte(t)
				continue
			}
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
