package coverage

import (
	"fmt"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// SurfaceOnly is why a remote server's audit is incomplete whatever it
// offered: it runs elsewhere, so none of its behaviour was observed.
const SurfaceOnly = "surface only: a remote server runs elsewhere, so what it does with files, processes, the network and credentials was not observed; only what it offered (its opening, its lists and its ui:// pages) was judged"

// Incomplete lists why an audit could not observe what a verdict needs,
// each with what the user can do; none when it could. It reads the
// manifest's facts (outcome, calls, trace, witness run), not its recorded
// coverage, so manifests of any schema version are judged alike.
func Incomplete(man *m.Manifest) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	need := "if it needs a credential or a setting to start, give it one: --canary-env NAME (a canary), --env NAME=VALUE, or --cmd"
	if man.Target.Ecosystem == m.EcosystemRemote {
		add("%s", SurfaceOnly)
		need = "a remote server that wants a credential is not audited past its opening (none from a client file is ever sent)"
	}
	o := man.Outcome
	reason := strings.TrimSpace(o.Reason)
	switch o.Status {
	case m.StatusError:
		add("the audit could not finish: %s", reason)
	case m.StatusNoHandshake:
		add("the server did not complete the opening: %s; %s", reason, need)
	case m.StatusKilled:
		add("the server was killed before the audit ended: %s (--memory, --timeout)", reason)
	case m.StatusCrashed:
		if !handshaken(man) {
			add("the server exited before the opening%s; %s", exitNote(o), need)
		}
	}
	// Tool calls are the server's work; prompts and resources count only
	// for a server that offers no tools.
	made, ok, failed := 0, 0, map[string]int{}
	skipped := map[string]int{}
	tools := len(man.Tools) > 0
	for _, c := range man.Calls {
		switch {
		case c.Outcome == m.CallSkipped:
			skipped[Class(c, nil)]++
		case tools && c.Kind != "tool":
		case c.Outcome == m.CallOK:
			made++
			ok++
		default:
			made++
			failed[Class(c, schemaOf(man, c))]++
		}
	}
	if made > 0 && ok == 0 {
		what := "every call"
		if tools {
			what = "every tool call"
		}
		add("%s failed (%s): give the server what its tools need: --canary-env NAME for a credential, --env NAME=VALUE, --tool-args NAME=JSON", what, classList(failed))
	}
	if n := skipped[m.ErrorClassSkippedBudget]; n > 0 {
		add("%d %s not made: the time budget for calls was used up (--call-budget)", n, plural(n, "call was", "calls were"))
	}
	if n := skipped[m.ErrorClassSkippedRestart]; n > 0 {
		add("%d %s not made: the server died and could not be restarted", n, plural(n, "call was", "calls were"))
	}
	if truncated(man) {
		add("the trace was cut: behaviour after the cut was not observed")
	}
	if w, ok := strings.CutPrefix(man.Run.WitnessRun, "failed"); ok {
		add("the witness run (the same server untraced) did not run%s: what the server does when not traced was not compared", strings.TrimRight(w, " "))
	}
	if w, ok := strings.CutPrefix(man.Run.Differential, "failed"); ok {
		add("the runs with the same and with other secrets did not both run%s: output that follows the planted values was not compared", strings.TrimRight(w, " "))
	}
	return out
}

// handshaken reports whether the server answered the opening: it listed
// something, or the audit called it.
func handshaken(man *m.Manifest) bool {
	return man.Server.ProtocolVersion != "" || len(man.Calls) > 0 || len(man.Tools) > 0
}

func exitNote(o m.Outcome) string {
	if o.ExitCode == nil {
		return ""
	}
	return fmt.Sprintf(" (exit code %d)", *o.ExitCode)
}

// truncated reports a trace cut at its size or analysis limit.
func truncated(man *m.Manifest) bool {
	if man.Run.Trace.Truncated {
		return true
	}
	for _, p := range man.Phases {
		if slices.ContainsFunc(p.Alerts, func(a m.Alert) bool { return a.Kind == m.AlertTraceIncomplete }) {
			return true
		}
	}
	return false
}

// classList is "3 backend unreachable, 2 invalid arguments".
func classList(classes map[string]int) string {
	var keys []string
	for k := range classes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if classes[a] != classes[b] {
			return classes[b] - classes[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", classes[k], strings.ReplaceAll(k, "-", " ")))
	}
	return strings.Join(parts, ", ")
}
