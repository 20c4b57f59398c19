package canary

import (
	"net/url"
	"strings"
)

// providerPrefixes are the fixed heads of the provider-shaped values
// (shapes, addDecoys), longest first where one extends another. They say
// which provider a value claims to come from and carry no randomness, so a
// partial match needs some of the value after them.
var providerPrefixes = []string{
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "sk-ant-api03-", "sk_live_51", "sk_test_51", "sk-proj-", "lin_api_",
	"github_pat_", "glpat-", "xoxb-", "pplx-", "tvly-", "pcsk_", "ghp_", "gho_", "npm_", "ntn_",
	"AKIA", "AIza", "hf_", "fc-", "SG.", "BSA",
}

// minPrefixPart is how many characters after a provider prefix make a
// truncated value distinctive: 8 random alphanumerics are 47 bits, and the
// prefix must match too.
const minPrefixPart = 8

// splitPrefix returns the provider prefix of v and the rest, or "" and v.
func splitPrefix(v string) (string, string) {
	for _, p := range providerPrefixes {
		if strings.HasPrefix(v, p) {
			return p, v[len(p):]
		}
	}
	return "", v
}

// core is the random part of a value: what a fragment must come from to
// prove this run's canary. A provider prefix, a JWT header and the fixed
// parts of a connection string (scheme, user, host, port, database) are
// shared with every other value of their kind and left out.
func core(v string) string {
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil {
			return ""
		}
		if pw, ok := u.User.Password(); ok {
			return pw
		}
		if u.User != nil {
			return u.User.Username() // a Sentry DSN's key
		}
		return v[strings.LastIndexByte(v, '/')+1:] // a webhook's secret path
	}
	_, rest := splitPrefix(v)
	return rest
}
