package classify

import (
	"math"
	"unicode/utf8"
)

// maxEntropyBytes bounds how much of a file is measured: the server chose
// its size.
const maxEntropyBytes = 64 << 10

// shannon is the entropy of b in bits per byte.
func shannon(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h, n := 0.0, float64(len(b))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// controlShare is the share of bytes that are control characters other
// than tab, newline and carriage return.
func controlShare(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	k := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			k++
		}
	}
	return float64(k) / float64(len(b))
}

// readable reports text a person reads: valid UTF-8, next to no control
// characters, not random-looking. A seeded file that is not (an image, a
// compressed git object) cannot be said to be replaced by random bytes.
func readable(b []byte) bool {
	b = b[:min(len(b), maxEntropyBytes)]
	return len(b) > 0 && utf8.Valid(b) && controlShare(b) < 0.02 && !highEntropy(b)
}

// highEntropy reports bytes that look random: ciphertext, random data, or
// their base64 or hex text. The bound depends on the length, since a
// short random string cannot reach 8 bits per byte: binary bytes must
// reach 85% of the most their length allows (log2 of min(n, 256));
// base64-alphabet text 85% of log2(min(n, 64)); hex text 3.7 bits. Text
// in a language has spaces and punctuation and stays far below.
func highEntropy(b []byte) bool {
	b = b[:min(len(b), maxEntropyBytes)]
	n := len(b)
	if n < 32 {
		return false
	}
	h := shannon(b)
	switch alphabet(b) {
	case alphaHex:
		return n >= 64 && h >= 3.7
	case alphaBase64:
		return n >= 64 && h >= 0.85*math.Log2(float64(min(n, 64)))
	case alphaText:
		return false
	}
	return h >= 0.85*math.Log2(float64(min(n, 256)))
}

const (
	alphaBinary = iota
	alphaText
	alphaBase64
	alphaHex
)

// alphabet names the narrowest alphabet b is written in (line breaks
// aside): hex digits, the base64 alphabets, other text, or binary.
func alphabet(b []byte) int {
	hex, b64 := true, true
	for _, c := range b {
		switch {
		case c == '\n' || c == '\r':
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
		case c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_':
			hex = false
		default:
			hex, b64 = false, false
		}
	}
	switch {
	case hex:
		return alphaHex
	case b64:
		return alphaBase64
	case utf8.Valid(b) && controlShare(b) < 0.02:
		return alphaText
	}
	return alphaBinary
}
