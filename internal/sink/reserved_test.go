package sink

import "testing"

func TestResolvable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer []string
		want   bool
	}{
		{"api.vendor.com", nil, true},
		{"API.Vendor.COM.", nil, true},
		{"x.github.io", nil, true}, // a private suffix under an ICANN TLD
		{"nx-probe.invalid", nil, false},
		{"invalid", nil, false},
		{"foo.localhost", nil, false},
		{"printer.local", nil, false},
		{"abc.onion", nil, false},
		{"x.alt", nil, false},
		{"router.home.arpa", nil, false},
		{"1.0.0.127.in-addr.arpa", nil, true},
		{"collect.evil.example", nil, false},
		{"caller.mcp-audit.test", nil, false},
		{"db.corp.internal", nil, false},
		{"nosuchtld-xyz", nil, false},
		{"host.nosuchtld", nil, false},
		{"", nil, false},
		{"collect.evil.example", []string{"example", "test"}, true},
		{"a.b.test", []string{"example", "test"}, true},
		{"nx-probe.invalid", []string{"example", "test"}, false},
		{"db.corp.internal", []string{"corp.internal"}, true},
		{"other.internal", []string{"corp.internal"}, false},
		{"xcorp.internal", []string{"corp.internal"}, false},
	} {
		if got := resolvable(tc.name, tc.answer); got != tc.want {
			t.Errorf("resolvable(%q, %q) = %v, want %v", tc.name, tc.answer, got, tc.want)
		}
	}
}
