package sink

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// specialUse are the special-use domain names no public resolver answers
// (RFC 6761 .invalid, .localhost, .example, .test; RFC 6762 .local; RFC
// 7686 .onion; RFC 8375 home.arpa; RFC 9476 .alt). A sinkhole that
// answered them would be a tell: a server could probe nx-probe.invalid and
// misbehave only when it fails to resolve, that is on every real machine.
var specialUse = []string{"invalid", "localhost", "local", "onion", "alt", "home.arpa", "example", "test"}

// resolvable reports whether a real resolver could answer an address for
// name: not a special-use name, and under a top-level domain ICANN
// delegates. answer lists suffixes answered anyway (the test harness's
// fixtures use .example and .test; the canaries name private hosts a
// user's own resolver answers).
func resolvable(name string, answer []string) bool {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if name == "" {
		return false
	}
	for _, s := range answer {
		if underSuffix(name, strings.Trim(strings.ToLower(s), ".")) {
			return true
		}
	}
	for _, s := range specialUse {
		if underSuffix(name, s) {
			return false
		}
	}
	tld := name[strings.LastIndexByte(name, '.')+1:]
	_, icann := publicsuffix.PublicSuffix(tld)
	return icann
}

// underSuffix reports whether name is suffix or a name below it.
func underSuffix(name, suffix string) bool {
	return suffix != "" && (name == suffix || strings.HasSuffix(name, "."+suffix))
}
