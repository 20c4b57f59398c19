package policy

import (
	"fmt"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestDerivedSeverities: output that follows the planted values is
// critical when sent, high when handed to the client or when the run read
// the user's files, low when only one side made it, critical again
// when where it went follows them, and low in a call that named the
// workspace files it may follow.
func TestDerivedSeverities(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    m.DerivedOutput
		want Severity
	}{
		{"sent", m.DerivedOutput{Channel: differential.ChannelHTTP}, Critical},
		{"dns", m.DerivedOutput{Channel: differential.ChannelDNS}, Critical},
		{"result", m.DerivedOutput{Channel: differential.ChannelResult}, High},
		{"message", m.DerivedOutput{Channel: differential.ChannelMessage}, High},
		{"user files read", m.DerivedOutput{Channel: differential.ChannelHTTP, UserFiles: true}, High},
		{"one side", m.DerivedOutput{Channel: differential.ChannelHTTP, Presence: differential.PresencePrimary}, Low},
		{"swapped", m.DerivedOutput{Channel: differential.ChannelDNS, Presence: differential.PresenceSwapped}, Critical},
		{"caller", m.DerivedOutput{Channel: differential.ChannelHTTP, Caller: true}, Low},
		{"stderr", m.DerivedOutput{Channel: differential.ChannelMessage, Dest: m.ChannelStderr}, Medium},
		{"a digit or two of a result", m.DerivedOutput{Channel: differential.ChannelResult, Fields: []string{"text#137 (1 characters)", "text#164 (2 characters)"}}, Low},
		{"three characters of a result", m.DerivedOutput{Channel: differential.ChannelResult, Fields: []string{"text#137 (3 characters)"}}, High},
		{"one lookup's type", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A or AAAA)"}}, Low},
		{"two lookups' types, HTTPS among them", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A, AAAA or HTTPS)"}, Count: 2}, Low},
		{"nine lookups' types, HTTPS among them", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A, AAAA or HTTPS)"}, Count: 9}, Critical},
		{"another type", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (3 characters)"}}, Critical},
		{"another type", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (4 characters)"}}, Critical},
		{"a body's length alone", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits, 2 apart)"}}, Low},
		{"a body's length beside a field", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits, 2 apart)", "body.d (40 characters)"}}, Critical},
		{"a body's length in two requests", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits, 2 apart)"}, Count: 2}, Low},
		{"a body's length in three requests", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits, 2 apart)"}, Count: 3}, Critical},
		{"a duration and the length", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits, 2 apart)", "body.checkpoints[2].timestamp (2 digits)"}, Count: 2}, Low},
		// desktop-commander's telemetry: a flag its feature flags' load set
		// before a call in the runs with the same secrets and after it in
		// the other, its length, a duration.
		{"a flag in one run only", m.DerivedOutput{Channel: differential.ChannelHTTP, UserFiles: true, Count: 2, Fields: []string{
			"body.events[0].params.duration_ms (1 digits)", "header.content-length (3 digits, 28 apart)", "body.events[0].params.saw_onboarding_page (a flag, in one run only)"}}, Low},
		{"a flag and a body that grew more", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{
			"header.content-length (3 digits, 60 apart)", "body.params.saw_onboarding_page (a flag, in one run only)"}}, Critical},
		{"three flags", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{
			"body.a (a flag, in one run only)", "body.b (a flag, in one run only)", "body.c (a flag, in one run only)"}}, Critical},
		{"a flag beside a text", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{
			"body.a (a flag, in one run only)", "body.k (24 characters)"}}, Critical},
		{"a body that grew", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (4 digits, 230 apart)"}}, Critical},
		{"a length without how far", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"header.content-length (3 digits)"}}, Critical},
		{"three lookups' types", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A, AAAA or HTTPS)"}, Count: 3}, Critical},
		{"a longer number", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"body.n (4 digits)"}}, Critical},
		{"three numbers", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"body.a (1 digits)", "body.b (1 digits)", "body.c (1 digits)"}}, Critical},
		{"a short text", m.DerivedOutput{Channel: differential.ChannelHTTP, Fields: []string{"body.a (2 characters)"}}, Critical},
		{"a digit or two of a result, as digits", m.DerivedOutput{Channel: differential.ChannelResult, Fields: []string{"text#137 (2 digits)"}}, Low},
		{"sixteen lookups' types", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A or AAAA)"}, Count: 9}, Critical},
		{"a lookup's name", m.DerivedOutput{Channel: differential.ChannelDNS, Fields: []string{"qtype (A or AAAA)", "label/0 (12 characters)"}}, Critical},
	} {
		tc.d.Phase = m.PhaseStartup
		if tc.d.Fields == nil {
			tc.d.Fields = []string{"body.d (40 characters)"}
		}
		if tc.d.Dest == "" {
			tc.d.Dest = "drop.example"
		}
		fs := derivedFindings(&m.Manifest{Derived: []m.DerivedOutput{tc.d}})
		if len(fs) != 1 || fs[0].Severity != tc.want || fs[0].Kind != KindDerived {
			t.Errorf("%s: %+v, want %s", tc.name, fs, tc.want)
		}
	}
}

// TestDerivedSmallDifferencesAddUp: three emissions each too small for a
// secret (a digit of a result, a request's length a few bytes apart, a
// lookup's type) are no longer each too little: together they could
// spell one, and stay what they are. Two of them are still low.
func TestDerivedSmallDifferencesAddUp(t *testing.T) {
	for _, tc := range []struct {
		name    string
		channel string
		dests   []string
		field   string
		want    Severity
	}{
		{"results", differential.ChannelResult, []string{"tools/call", "tools/call", "tools/call"}, "text#1 (1 characters)", High},
		{"lengths", differential.ChannelHTTP, []string{"a.example POST", "b.example POST", "c.example POST"}, "header.content-length (4 digits, 2 apart)", Critical},
		{"two lengths", differential.ChannelHTTP, []string{"a.example POST", "b.example POST"}, "header.content-length (4 digits, 2 apart)", Low},
		{"types", differential.ChannelDNS, []string{"a.example", "b.example", "c.example"}, differential.QtypeAddressOrHTTPS, Critical},
		{"two types", differential.ChannelDNS, []string{"a.example", "b.example"}, differential.QtypeAddressOrHTTPS, Low},
	} {
		var man m.Manifest
		for i, dest := range tc.dests {
			man.Derived = append(man.Derived, m.DerivedOutput{Phase: fmt.Sprintf("call:c%d", i), Channel: tc.channel, Dest: dest, Fields: []string{tc.field}})
		}
		for _, f := range derivedFindings(&man) {
			if f.Severity != tc.want {
				t.Errorf("%s: %+v, want %s", tc.name, f, tc.want)
			}
		}
	}
}
