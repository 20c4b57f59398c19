// Package verdict names how a run of mcp-audit ends for its caller: the
// sentinel errors every command returns — a user error, findings that
// fail the policy — defined once here, wrapped with what to fix, and
// mapped to exit statuses in one place (cli.exitCode).
package verdict

import "errors"

// Gate is the error a verdict ends a command with: ErrFindings for fail,
// ErrIncomplete for incomplete, nil for pass — and nil for any verdict
// when reportOnly (--fail-on none: report, never gate).
func Gate(v string, reportOnly bool) error {
	switch {
	case reportOnly:
		return nil
	case v == "fail":
		return ErrFindings
	case v == "incomplete":
		return ErrIncomplete
	}
	return nil
}

var (
	// ErrUsage is a mistake in what the caller asked for (a flag, an
	// argument, the configuration, a target, an unreadable manifest): the
	// message says what to fix.
	ErrUsage = errors.New("usage error")
	// ErrFindings means the run worked and a server fails its policy.
	ErrFindings = errors.New("findings at or above the failure threshold")
	// ErrIncomplete means nothing failed, but a server could not be
	// audited as a verdict needs (it did not start, answer or work, calls
	// were skipped, the trace was cut): what was not audited cannot pass.
	ErrIncomplete = errors.New("the audit is incomplete")
)
