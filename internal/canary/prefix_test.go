package canary

import (
	"regexp"
	"strings"
	"testing"
)

// reLooksPrefixed is a value that opens like a provider's key: letters,
// then a separator, within its first characters (sk_live_51…, ghp_…,
// xoxb-…). Such a value's prefix must be known to the finder, or a
// partial theft (the prefix and the start of the secret) goes unseen.
var reLooksPrefixed = regexp.MustCompile(`^[A-Za-z]{2,8}[_-]`)

// TestGeneratedPrefixesAreKnown: every provider-shaped canary that
// carries a prefix has it in providerPrefixes (a format change once left
// Stripe's sk_live_51 out, and prefix matching of it silently stopped).
func TestGeneratedPrefixesAreKnown(t *testing.T) {
	for _, c := range Generate(nil).All() {
		for _, v := range c.Values {
			if strings.Contains(v, "://") || !reLooksPrefixed.MatchString(v) {
				continue
			}
			if p, _ := splitPrefix(v); p == "" {
				t.Errorf("%s: %.14s… has a provider prefix the finder does not know", c.Name, v)
			}
		}
	}
}
