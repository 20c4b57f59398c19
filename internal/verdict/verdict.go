// Package verdict names how a run of mcp-audit ends for its caller: the
// sentinel errors every command returns — a user error, findings that
// fail the policy — defined once here, wrapped with what to fix, and
// mapped to exit statuses in one place (cli.exitCode).
package verdict

import "errors"

var (
	// ErrUsage is a mistake in what the caller asked for (a flag, an
	// argument, the configuration, a target, an unreadable manifest): the
	// message says what to fix.
	ErrUsage = errors.New("usage error")
	// ErrFindings means the run worked and a server fails its policy.
	ErrFindings = errors.New("findings at or above the failure threshold")
)
