package audit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

func TestDecideOutcome(t *testing.T) {
	t.Parallel()
	rc := func(n int) *int { return &n }
	exit3 := []string{"seed-ok", "exit 3 1700000000.5"}
	tests := []struct {
		name string
		in   ending
		want m.Outcome
	}{
		{"ok", ending{handshake: true},
			m.Outcome{Status: m.StatusOK}},
		{"ok ignores an exit note of a server the audit stopped", ending{handshake: true, status: sandbox.ParseStatus(exit3)},
			m.Outcome{Status: m.StatusOK}},
		{"a refused opening names the refusal, not a timeout", ending{startupTimeout: 35 * time.Second, refused: "the server answered the opening with an error: Unsupported protocol version (code -32602)"},
			m.Outcome{Status: m.StatusNoHandshake, Reason: "the server answered the opening with an error: Unsupported protocol version (code -32602)"}},
		{"no handshake names the startup timeout", ending{startupTimeout: 35 * time.Second},
			m.Outcome{Status: m.StatusNoHandshake, Reason: "initialize was not answered within 35s"}},
		{"crashed before initialize, with exit code", ending{exited: true, status: sandbox.ParseStatus(exit3)},
			m.Outcome{Status: m.StatusCrashed, Reason: "the server exited before answering initialize", ExitCode: rc(3)}},
		{"crashed after initialize, with exit code", ending{exited: true, handshake: true, status: sandbox.ParseStatus([]string{"exit 0 1.0"})},
			m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own", ExitCode: rc(0)}},
		{"crashed by a signal", ending{exited: true, handshake: true, status: sandbox.ParseStatus([]string{"exit 137 1.0"})},
			m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own", ExitCode: rc(137)}},
		{"crashed without an exit note", ending{exited: true, handshake: true},
			m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own"}},
		{"crashed with a malformed exit note", ending{exited: true, handshake: true, status: sandbox.ParseStatus([]string{"exit", "exit x 1.0"})},
			m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own"}},
		{"memory limit", ending{oomKilled: true, handshake: true},
			m.Outcome{Status: m.StatusKilled, Reason: "the memory limit was reached"}},
		{"memory limit explains the exit", ending{oomKilled: true, exited: true, status: sandbox.ParseStatus(exit3)},
			m.Outcome{Status: m.StatusKilled, Reason: "the memory limit was reached"}},
		{"deadline", ending{deadlineHit: true, handshake: true},
			m.Outcome{Status: m.StatusKilled, Reason: "the audit deadline was reached"}},
		{"deadline outranks memory and exit", ending{deadlineHit: true, oomKilled: true, exited: true, status: sandbox.ParseStatus(exit3)},
			m.Outcome{Status: m.StatusKilled, Reason: "the audit deadline was reached"}},
		{"audit failure outranks everything", ending{failure: "reading the trace failed", deadlineHit: true, exited: true, status: sandbox.ParseStatus(exit3)},
			m.Outcome{Status: m.StatusError, Reason: "reading the trace failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, decideOutcome(tt.in)); diff != "" {
				t.Errorf("decideOutcome(%+v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
