package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/apps"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/schedule"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// Limits on exercising.
const (
	maxRestarts = 3
	settleMax   = 2 * time.Second
	settleQuiet = 300 * time.Millisecond
)

type exerciser struct {
	o        Options
	sb       *sandbox.Sandbox
	spec     sandbox.Spec
	cs       *canary.Set
	ses      *session
	log      *slog.Logger
	calls    []m.Call
	apps     []m.AppPage // the MCP Apps pages read (internal/apps)
	restarts int
	// relisted are the lists read again when the server announced a
	// change (notifications/*/list_changed).
	relisted []*session
}

// notPlanned says why the options left tools without a call: the
// user's choice, listed in the coverage (not a reason for an incomplete
// verdict).
func notPlanned(o Options) string {
	switch {
	case o.Calls == CallsNone:
		return "not called: calls none"
	case len(o.Tools) > 0:
		return "not selected (--tool, tools:)"
	}
	return ""
}

// planner plans the calls to make as they are made (internal/schedule):
// later sets take what earlier calls returned, never a canary.
func (x *exerciser) planner() *schedule.Planner {
	finder := canary.NewFinder(x.cs.All())
	return schedule.NewPlanner(schedule.Lists{Tools: x.ses.Tools, Prompts: x.ses.Prompts, Resources: x.ses.Resources, Templates: x.ses.Templates,
		Completions: x.ses.Init.Has("completions")},
		schedule.Selection{None: x.o.Calls == CallsNone, Tools: x.o.Tools, ToolArgs: x.o.ToolArgs},
		func(v string) bool { return len(finder.Find([]byte(v))) > 0 })
}

// run makes the planned calls, each in its own window, restarting a
// server that died between them.
func (x *exerciser) run(ctx context.Context, seg *segment, segments *[]*segment) (*segment, bool) {
	pl := x.planner()
	budget := schedule.NewBudgetFor(x.o.Timing.CallBudget, x.o.Timing.CallTimeout, pl.Firsts(), nil)
	restarted := false
	for i := 0; ; i++ {
		pc, more := pl.Next()
		if !more {
			break
		}
		x.o.step(StepCalls, i, max(pl.Firsts(), i+1))
		call := m.Call{Phase: pc.Phase, Kind: pc.Kind, Name: textsafe.Text(pc.Name, 512), Args: pc.Args, ArgsValid: pc.Valid, Set: string(pc.Set.Reason),
			Probes: schedule.Probes(pc.Set)}
		timeout, ok := budget.Next(pc.Pass <= 1)
		switch {
		case seg == nil:
			call.Outcome, call.Detail = m.CallSkipped, "the server could not be restarted"
		case !ok || ctx.Err() != nil:
			call.Outcome, call.Detail = m.CallSkipped, "the time budget for calls was used up"
		}
		if call.Outcome == "" && (isDone(seg.run.Done()) || isDone(seg.client.Closed())) {
			// The server died after the previous call settled, or its
			// output closed (its container may take longer to end).
			next, err := x.restart(ctx, seg, segments)
			if err != nil {
				x.log.Debug("restart failed", "err", err)
				seg = nil
				call.Outcome, call.Detail = m.CallSkipped, "the server could not be restarted"
			} else {
				seg, restarted = next, true
			}
		}
		if call.Outcome != "" {
			x.calls = append(x.calls, call)
			continue
		}
		call.Restarted, restarted = restarted, false
		raw, failure := x.do(ctx, seg, pc, timeout, &call)
		x.calls = append(x.calls, call)
		pl.Done(pc, raw, failure)
	}
	if seg == nil {
		return nil, true
	}
	return seg, isDone(seg.run.Done())
}

// do makes one call in its own window and records the outcome.
func (x *exerciser) do(ctx context.Context, seg *segment, pc schedule.Call, timeout time.Duration, call *m.Call) (raw json.RawMessage, failure string) {
	seg.window(pc.Phase, time.Now())
	cctx, cancel := context.WithTimeout(ctx, timeout)
	// Driven as a real client drives it: a 2026-07-28 input_required
	// result answered and retried, a task followed to its end (its
	// window stays open while it runs).
	ex, err := seg.client.Request(cctx, pc.Method, variant.MoveParams(pc.Params, Home, x.spec.Home), mcpclient.RequestOptions{})
	cancel()
	if ex != nil {
		raw = ex.Result
	}
	var rpc *mcpclient.RPCError
	if err == nil || errors.As(err, &rpc) {
		seg.answered(time.Now())
	}
	switch {
	case err == nil && ex.Stopped != "" && ex.Stopped != mcpclient.StopUnsolicited:
		// The client could not drive it to a result (rounds or polls
		// exhausted, a failed task): what it returned is still judged.
		x.result(seg, pc, raw, call)
		call.Outcome, call.Detail = m.CallError, "stopped short: "+ex.Stopped
	case err == nil:
		call.Outcome = m.CallOK
		x.result(seg, pc, raw, call)
	case errors.As(err, &rpc) && rpc.Code == mcpclient.CodeTooLarge:
		call.Outcome = m.CallTooLarge
	case errors.As(err, &rpc):
		call.Outcome, call.Detail = m.CallError, m.NormalizeLabels(textsafe.Text(x.cs.Redact(rpc.Message), 200))
		failure = rpc.Message
	case errors.Is(err, mcpclient.ErrClosed):
		call.Outcome = m.CallServerDied
	case errors.Is(err, context.DeadlineExceeded):
		call.Outcome = m.CallTimeout
	default:
		call.Outcome, call.Detail = m.CallError, textsafe.Text(err.Error(), 200)
	}
	if call.Outcome != m.CallServerDied {
		// Let the call's side effects land in its window: wait until the
		// trace is quiet (or the server dies).
		x.settle(ctx, seg)
		if isDone(seg.run.Done()) {
			call.Outcome, call.Detail = m.CallServerDied, "the server exited after answering"
		} else if seg.ch.ListChanged() {
			x.relistNow(ctx, seg)
		}
	}
	if call.Content == nil {
		call.Content = []string{}
	}
	schedule.MarkProbes(call.Probes, raw)
	if call.Outcome == m.CallError && failure == "" {
		failure = coverage.ReadResult(raw).Text // an isError result's text: what argsynth.Correct reads
	}
	return raw, failure
}

// settle keeps the call's window open until its effects have landed
// (settle.go).
func (x *exerciser) settle(ctx context.Context, seg *segment) {
	settleWindow(ctx, seg.run.Done(), runActivity(seg.run), defaultSettle)
}

// result records the content types of an answer and looks for canaries in
// it: a server that returns a credential to the model leaks it.
func (x *exerciser) result(seg *segment, pc schedule.Call, raw json.RawMessage, call *m.Call) {
	for _, h := range canary.NewFinder(x.cs.All()).Find(raw) {
		seg.mcpHits[pc.Phase] = append(seg.mcpHits[pc.Phase], m.CanaryHit{Canary: h.Canary, How: m.HowMCPOutput,
			Evidence: pc.Method + " " + textsafe.Text(pc.Name, 200), Encoding: h.Encoding})
	}
	// The model reads what a call returns: its text is judged like a
	// description, and kept raw for the comparison of runs (a result
	// whose arguments name workspace files carries them by design).
	seg.ch.Result(pc.Method, raw)
	if pc.Method == "resources/read" && strings.HasPrefix(pc.Name, "ui://") && len(x.apps) < 20 {
		x.apps = append(x.apps, apps.Read(pc.Name, raw, x.cs.Redact))
	}
	seg.texts = append(seg.texts, differential.Text{Phase: pc.Phase, Channel: differential.ChannelResult, Dest: pc.Method,
		Text: string(raw[:min(len(raw), 64<<10)]), Caller: strings.Contains(string(pc.Args), Workspace)})
	r := coverage.ReadResult(raw)
	call.Content = r.Content
	if r.Failed {
		// A result that says it failed is a failed call, whatever its
		// isError: the behaviour behind it was not reached.
		call.Outcome, call.Detail = m.CallError, m.NormalizeLabels(textsafe.Text(x.cs.Redact(r.First), 200))
	}
}

// restart collects the dead segment and starts the server again in a new
// sandbox, through the handshake.
func (x *exerciser) restart(ctx context.Context, dead *segment, segments *[]*segment) (*segment, error) {
	if x.restarts >= maxRestarts {
		return nil, fmt.Errorf("restarted %d times already", x.restarts)
	}
	x.restarts++
	dead.client.Close()
	if err := dead.finish(ctx, x.o.Sandbox.MaxTraceBytes); err != nil {
		return nil, err
	}
	spec := x.spec
	spec.Install = nil // the install phase ran once; its effects are not in the new sandbox
	seg, err := startSegment(ctx, x.sb, spec, x.cs, x.o)
	if err != nil {
		return nil, err
	}
	*segments = append(*segments, seg)
	var ses session
	ok, exited := drive(ctx, x.o, x.o.Timing.StartupTimeout, seg.client, seg.run, &ses)
	if !ok || exited {
		return nil, errors.New("the restarted server did not answer initialize")
	}
	return seg, nil
}
