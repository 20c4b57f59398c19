package manifest

import "regexp"

// Random labels: a uuid, or a run of 8 or more hex digits with at least
// one digit (a hash or nonce in a DNS label or path), or a mixed run of 16
// or more letters and digits (a base32/base36/base64url token). Two runs
// of one server compare them as one placeholder, so "3f9a1c77.cdn.example"
// in one run and "b02de415.cdn.example" in the next are the same behavior.
var (
	reUUID      = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reHexLabel  = regexp.MustCompile(`(?i)\b[0-9a-f]*[0-9][0-9a-f]*\b`)
	reTokenLike = regexp.MustCompile(`\b[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*\b`)
	reLetter    = regexp.MustCompile(`[A-Za-z]`)
)

// NormalizeLabels replaces the random labels in s with placeholders
// (<uuid>, <hex>, <token>).
func NormalizeLabels(s string) string {
	s = reUUID.ReplaceAllString(s, "<uuid>")
	s = reHexLabel.ReplaceAllStringFunc(s, func(v string) string {
		if len(v) >= 8 {
			return "<hex>"
		}
		return v
	})
	return reTokenLike.ReplaceAllStringFunc(s, func(v string) string {
		if len(v) >= 16 && reLetter.MatchString(v) {
			return "<token>"
		}
		return v
	})
}
