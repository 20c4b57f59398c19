package policy

import (
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
	} {
		tc.d.Phase, tc.d.Dest, tc.d.Fields = m.PhaseStartup, "drop.example", []string{"body.d (40 characters)"}
		fs := derivedFindings(&m.Manifest{Derived: []m.DerivedOutput{tc.d}})
		if len(fs) != 1 || fs[0].Severity != tc.want || fs[0].Kind != KindDerived {
			t.Errorf("%s: %+v, want %s", tc.name, fs, tc.want)
		}
	}
}
