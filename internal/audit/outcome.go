package audit

import (
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// ending is what is known, once the sandbox has stopped, about how a run
// ended. It is plain data so the outcome decision can be tested without a
// container.
type ending struct {
	// failure, when set, says which part of the audit machinery failed;
	// it outranks anything the server did.
	failure string
	// deadlineHit: the audit deadline, not the caller, cut the run short.
	deadlineHit bool
	// oomKilled: the engine killed the (last) container at its memory limit.
	oomKilled bool
	// exited: the (last) server exited on its own before the audit
	// stopped it.
	exited bool
	// handshake: initialize was answered.
	handshake bool
	// refused: why the opening was answered with an error ("" when it was
	// not answered at all).
	refused string
	// status is the entrypoint's account of the last container
	// ("exit RC T", …).
	status sandbox.Status
	// startupTimeout is how long initialize was given, install included.
	startupTimeout time.Duration
}

// decideOutcome says how the server's run ended. A limit the audit imposed
// (deadline, memory) explains an exit better than the exit itself, so it
// is checked first.
func decideOutcome(e ending) m.Outcome {
	switch {
	case e.failure != "":
		return m.Outcome{Status: m.StatusError, Reason: e.failure}
	case e.deadlineHit:
		return m.Outcome{Status: m.StatusKilled, Reason: "the audit deadline was reached"}
	case e.oomKilled:
		return m.Outcome{Status: m.StatusKilled, Reason: "the memory limit was reached"}
	case e.exited:
		out := m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own"}
		if !e.handshake {
			out.Reason = "the server exited before answering initialize"
		}
		if ex := e.status.Exit; ex != nil {
			rc := ex.Code
			out.ExitCode = &rc
		}
		return out
	case !e.handshake && e.refused != "":
		return m.Outcome{Status: m.StatusNoHandshake, Reason: e.refused}
	case !e.handshake:
		return m.Outcome{Status: m.StatusNoHandshake, Reason: "initialize was not answered within " + e.startupTimeout.String()}
	default:
		return m.Outcome{Status: m.StatusOK}
	}
}
