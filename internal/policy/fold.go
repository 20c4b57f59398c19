package policy

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Fold returns text as a reader (or a model) sees it, so the injection
// detector is not defeated by look-alike characters: NFKC normalization
// first (fullwidth forms, mathematical alphanumerics, ligatures and other
// compatibility characters become their plain letters: "ｒｅａｄ" → "read",
// "𝐫𝐞𝐚𝐝" → "read"), then the look-alike letters NFKC keeps apart are
// folded to the Latin letter they imitate ("rеаd" with Cyrillic е and а →
// "read").
//
// The fold table is the subset of Unicode's confusables data
// (https://www.unicode.org/Public/security/latest/confusables.txt, UTS #39
// "Unicode Security Mechanisms", section 4) that maps a single Cyrillic or
// Greek letter to a single Latin letter: the homoglyphs an attacker can
// type into a description without any Latin letter looking wrong. It is
// deliberately small; characters with no Latin twin are left alone.
func Fold(text string) string {
	text = norm.NFKC.String(text)
	if !needsFold(text) {
		return text
	}
	return confusables.Replace(text)
}

func needsFold(s string) bool {
	for _, r := range s {
		if r >= 0x0370 && r <= 0x052F {
			return true
		}
	}
	return false
}

// confusables maps Cyrillic and Greek look-alikes to Latin (see Fold).
var confusables = strings.NewReplacer(
	// Cyrillic lower case.
	"а", "a", "е", "e", "о", "o", "р", "p", "с", "c", "у", "y", "х", "x",
	"і", "i", "ј", "j", "ѕ", "s", "ԁ", "d", "һ", "h", "ԛ", "q", "ԝ", "w", "ӏ", "l",
	// Cyrillic upper case.
	"А", "A", "В", "B", "Е", "E", "К", "K", "М", "M", "Н", "H", "О", "O", "Р", "P",
	"С", "C", "Т", "T", "Х", "X", "У", "Y", "І", "I", "Ј", "J", "Ѕ", "S", "Ԛ", "Q", "Ԝ", "W",
	// Greek lower case.
	"α", "a", "ο", "o", "ν", "v", "ι", "i", "ρ", "p", "υ", "u",
	// Greek upper case.
	"Α", "A", "Β", "B", "Ε", "E", "Ζ", "Z", "Η", "H", "Ι", "I", "Κ", "K", "Μ", "M",
	"Ν", "N", "Ο", "O", "Ρ", "P", "Τ", "T", "Υ", "Y", "Χ", "X",
)
