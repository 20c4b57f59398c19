package hosts

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Valid accepts what an allow-list may name: an RFC 1123 host name
// with at least two labels and no wildcard, or a public unicast IP
// address. Loopback, private, link-local (cloud metadata), shared,
// benchmark (the sinkhole's own 198.18.0.0/15) and reserved ranges, and
// local-only names, are refused.
func Valid(h string) error {
	if a, err := netip.ParseAddr(h); err == nil {
		if !publicAddr(a) {
			return fmt.Errorf("%q is not a public address", h)
		}
		return nil
	}
	if len(h) == 0 || len(h) > 253 {
		return fmt.Errorf("host name of %d bytes", len(h))
	}
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(h), "."), ".")
	if len(labels) < 2 {
		return fmt.Errorf("%q is not a fully qualified name", textsafe.Line(h, 200))
	}
	for _, l := range labels {
		if !validLabel(l) {
			return fmt.Errorf("%q is not an RFC 1123 host name", textsafe.Line(h, 200))
		}
	}
	switch labels[len(labels)-1] {
	case "localhost", "local", "internal", "lan", "home", "arpa":
		return fmt.Errorf("%q is a local name", textsafe.Line(h, 200))
	}
	if _, err := strconv.Atoi(labels[len(labels)-1]); err == nil {
		return fmt.Errorf("%q looks like a partial address", textsafe.Line(h, 200))
	}
	return nil
}

func validLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
