package differential

import (
	"regexp"
	"strings"
	"time"
)

// Timestamps a server writes in what it sends: an HTTP date (a signed
// request's Date or x-…-date header), ISO 8601 with or without fractions
// and zone (a request time in a body, a log line), and the compact form
// request signatures use (x-amz-date). A timestamp is one field, never
// split into its digits: the milliseconds of two runs' timestamps agree
// now and then by chance among a thousand of them (okx-trade-mcp's
// requestTime), and the runs starting a few seconds apart move the
// whole value (clockStep), not a secret.
var reTimestamp = regexp.MustCompile(`[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|` +
	`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?|\d{8}T\d{6}Z`)

var timeLayouts = []string{
	time.RFC1123,
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"20060102T150405Z",
}

// timestamp parses s when it is a timestamp and nothing else, with the
// index of its layout (two values compare only in one layout).
func timestamp(s string) (time.Time, int, bool) {
	if len(s) < 15 || len(s) > 40 || !maybeTime(s) {
		return time.Time{}, 0, false
	}
	if loc := reTimestamp.FindStringIndex(s); loc == nil || loc[0] != 0 || loc[1] != len(s) {
		return time.Time{}, 0, false
	}
	for i, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, i, true
		}
	}
	return time.Time{}, 0, false
}

// maybeTime: every timestamp form has a colon or ends its compact form
// in Z, so most fields skip the regular expression (it runs on every
// string of every record).
func maybeTime(s string) bool { return strings.ContainsAny(s, ":Z") }

// tokensKeepingTimes is Tokens with every timestamp in s kept whole.
func tokensKeepingTimes(s string) []string {
	if !maybeTime(s) {
		return Tokens(s)
	}
	locs := reTimestamp.FindAllStringIndex(s, 64)
	if len(locs) == 0 {
		return Tokens(s)
	}
	var out []string
	at := 0
	for _, l := range locs {
		out = append(out, Tokens(s[at:l[0]])...)
		out = append(out, s[l[0]:l[1]])
		at = l[1]
	}
	return append(out, Tokens(s[at:])...)
}
