package clientconfig

import (
	"net/url"
	"regexp"
	"strings"
)

// contactURL is where a remote server configured at raw may be contacted
// without sending anything of the client file's credentials: scheme, host
// and path, the user, password, query and fragment dropped (a key in the
// query is common; so is a harmless parameter, but which is which cannot
// be told). A path segment that looks like a key, or a variable reference
// anywhere, makes it "" with why: the path cannot be sent without what
// may be a credential, nor rewritten without reaching another endpoint.
func contactURL(u *url.URL) (string, string) {
	if reReference.MatchString(u.Host) || reReference.MatchString(u.Path) {
		return "", "its URL refers to a variable, which the audit does not expand"
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if what := shapeOf(seg); what != "" {
			return "", "its URL path holds what looks like " + what
		}
		if keyLike(seg) {
			return "", "its URL path holds what looks like a key"
		}
	}
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String(), ""
}

var (
	reKeyChars = regexp.MustCompile(`^[A-Za-z0-9_.~=-]+$`)
	reHexish   = regexp.MustCompile(`^[0-9a-fA-F-]{16,}$`)
	reDigit    = regexp.MustCompile(`[0-9]`)
	reLower    = regexp.MustCompile(`[a-z]`)
	reUpper    = regexp.MustCompile(`[A-Z]`)
)

// keyLike: a path segment shaped like a generated key rather than a word
// (a hex string or UUID of 16 characters or more, or 20 or more of
// letters and digits mixing cases and digits). Words and version segments
// such as "mcp", "v1" or "streamable-http" are not.
func keyLike(seg string) bool {
	if !reKeyChars.MatchString(seg) {
		return false
	}
	if reHexish.MatchString(seg) && reDigit.MatchString(seg) {
		return true
	}
	if len(seg) < 20 {
		return false
	}
	classes := 0
	for _, re := range []*regexp.Regexp{reDigit, reLower, reUpper} {
		if re.MatchString(seg) {
			classes++
		}
	}
	return classes == 3 || (classes == 2 && reDigit.MatchString(seg) && len(seg) >= 32)
}
