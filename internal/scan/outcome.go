package scan

import (
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// ErrUnreadable: a configuration file, or a server entry in one, could
// not be read (exit 2): its servers were not audited, so the scan is not
// the whole of what the clients run. The other files' servers still are.
var ErrUnreadable = fmt.Errorf("%w: a client configuration could not be read", verdict.ErrUsage)

// Outcome is a scan's result as an error, like check's: an unreadable
// configuration first (what it holds was not audited at all), then a
// server that fails its policy (verdict.ErrFindings), then a server that
// was not, or not completely, audited (verdict.ErrIncomplete) unless
// allowIncomplete; nil when every server passed. A server judged with
// --fail-on none (or fail_on: none) reports without failing, as in check.
func Outcome(problems []clientconfig.Problem, reports []report.DiffReport, allowIncomplete bool) error {
	if len(problems) > 0 {
		return fmt.Errorf("%w (%d %s; see above)", ErrUnreadable, len(problems), plural(len(problems), "problem", "problems"))
	}
	var failed, incomplete int
	for _, r := range reports {
		switch {
		case r.Result == nil && !allowIncomplete:
			incomplete++
		case r.Result == nil:
		case r.Result.Verdict == m.VerdictFail:
			failed++
		case r.Result.Verdict == m.VerdictIncomplete && r.Result.FailOn <= policy.Critical:
			incomplete++
		}
	}
	if failed > 0 {
		return verdict.ErrFindings
	}
	if incomplete > 0 {
		return fmt.Errorf("%w: %d %s not audited as a verdict needs", verdict.ErrIncomplete, incomplete, plural(incomplete, "server was", "servers were"))
	}
	return nil
}

// ReportOnly is a --fail-on that never fails (none): a server that could
// not be audited is reported, not failed.
func ReportOnly(failOn string) bool {
	sev, err := policy.ParseSeverity(failOn)
	return failOn != "" && err == nil && sev > policy.Critical
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
