package policy

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the base64 reading: runs shorter than minEncoded are words or
// identifiers; at most maxEncodedRuns runs per text are decoded, each up
// to maxEncodedBytes of its start (a megabyte image is not an
// instruction, and its first kilobytes decode to binary anyway).
const (
	minEncoded      = 24
	maxEncodedRuns  = 16
	maxEncodedBytes = 4 << 10
)

// encodedSigns decodes the base64-looking runs of text ("decode and
// follow: aWdub3Jl…") and reads the ones that decode to text with the
// rules (once: what a decoded text encodes again is not decoded).
func encodedSigns(jg *judging, text string) []string {
	var out []string
	runs := 0
	for start := 0; start < len(text) && runs < maxEncodedRuns; {
		i, j := nextRun(text, start)
		if i < 0 {
			break
		}
		start = j
		runs++
		plain, ok := decodeRun(text[i:j])
		if !ok {
			continue
		}
		for _, sign := range textSigns(jg, plain, false) {
			out = append(out, "encoded instructions (base64 at byte "+strconv.Itoa(i)+"): "+sign)
		}
	}
	return out
}

// nextRun finds the next run of at least minEncoded base64 characters
// (either alphabet) at or after start.
func nextRun(text string, start int) (int, int) {
	for i := start; i < len(text); {
		if !base64Byte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && base64Byte(text[j]) {
			j++
		}
		if j-i >= minEncoded {
			return i, j
		}
		i = j
	}
	return -1, -1
}

func base64Byte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// decodeRun decodes the start of a run and keeps it when it is text:
// valid UTF-8 with letters and spaces and almost no control characters.
func decodeRun(run string) (string, bool) {
	run = strings.TrimRight(run, "=")
	run = run[:min(len(run), maxEncodedBytes)/4*4]
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(run)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	s := string(b)
	letters, spaces, control := 0, 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
			if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
				spaces++ // CJK text has no spaces between words
			}
		case r == ' ':
			spaces++
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			control++
		}
	}
	n := utf8.RuneCountInString(s)
	return s, spaces > 0 && control == 0 && letters*10 >= n*6
}
