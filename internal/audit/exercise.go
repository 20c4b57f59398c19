package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Limits on exercising.
const (
	maxRestarts  = 3
	maxPrompts   = 50
	maxResources = 50
	settleMax    = 2 * time.Second
	settleQuiet  = 300 * time.Millisecond
)

type plannedCall struct {
	kind, name, phase, method string
	params                    any
	args                      json.RawMessage
	valid                     bool
}

type exerciser struct {
	o        Options
	sb       *sandbox.Sandbox
	spec     sandbox.Spec
	cs       *canary.Set
	ses      *session
	log      *slog.Logger
	calls    []m.Call
	restarts int
	// relisted are the lists read again when the server announced a
	// change (notifications/*/list_changed).
	relisted []*session
}

// plan lists the calls to make: every tool (or the configured subset) in
// the order the server listed them, then prompts, resources and resource
// templates, then every tool again in phases of their own (call:NAME#2),
// so a server that behaves on the first call and not on a later one is
// seen.
func (x *exerciser) plan() []plannedCall {
	if x.o.Calls == CallsNone {
		return nil
	}
	tools := x.planTools()
	out := slices.Clone(tools)
	if len(x.o.Tools) == 0 { // an explicit tool list means only those
		out = append(out, x.planPrompts()...)
		out = append(out, x.planResources()...)
		out = append(out, x.planTemplates()...)
	}
	for _, pc := range tools {
		pc.phase += callAgainSuffix
		out = append(out, pc)
	}
	return out
}

// callAgainSuffix marks the phase of a tool's second call.
const callAgainSuffix = "#2"

func (x *exerciser) planTools() []plannedCall {
	var out []plannedCall
	for _, raw := range x.ses.tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" {
			continue
		}
		if len(x.o.Tools) > 0 && !slices.Contains(x.o.Tools, t.Name) {
			continue
		}
		args, valid, _ := argsynth.Synthesize(t.InputSchema)
		if over, ok := x.o.ToolArgs[t.Name]; ok {
			args = over
			valid = argsynth.Validate(t.InputSchema, over) == nil
		}
		out = append(out, plannedCall{kind: "tool", name: t.Name, phase: m.PhaseCallPrefix + textsafe.Text(t.Name, maxName),
			method: "tools/call", params: map[string]any{"name": t.Name, "arguments": json.RawMessage(args)}, args: args, valid: valid})
	}
	return out
}

func (x *exerciser) planPrompts() []plannedCall {
	var out []plannedCall
	for i, raw := range x.ses.prompts {
		if i == maxPrompts {
			break
		}
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" {
			continue
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = argsynth.ForName(a.Name)
		}
		b, _ := json.Marshal(args)
		out = append(out, plannedCall{kind: "prompt", name: p.Name, phase: m.PhasePromptPrefix + textsafe.Text(p.Name, maxName),
			method: "prompts/get", params: map[string]any{"name": p.Name, "arguments": args}, args: b, valid: true})
	}
	return out
}

func (x *exerciser) planResources() []plannedCall {
	var out []plannedCall
	for i, raw := range x.ses.resources {
		if i == maxResources {
			break
		}
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &r) != nil || r.URI == "" {
			continue
		}
		out = append(out, readCall("resource", r.URI))
	}
	return out
}

// planTemplates reads each resource template once, at a URI filled in
// with the values a client's user would give.
func (x *exerciser) planTemplates() []plannedCall {
	var out []plannedCall
	for i, raw := range x.ses.templates {
		if i == maxResources {
			break
		}
		var r struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &r) != nil || r.URITemplate == "" {
			continue
		}
		out = append(out, readCall("template", argsynth.ExpandURI(r.URITemplate)))
	}
	return out
}

func readCall(kind, uri string) plannedCall {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return plannedCall{kind: kind, name: uri, phase: m.PhaseReadPrefix + textsafe.Text(uri, 512),
		method: "resources/read", params: map[string]any{"uri": uri}, args: b, valid: true}
}

// run makes the planned calls one at a time. It returns the segment that
// is alive at the end (nil when the server could not be restarted) and
// whether that server exited on its own.
func (x *exerciser) run(ctx context.Context, seg *segment, segments *[]*segment) (*segment, bool) {
	plan := x.plan()
	deadline := time.Now().Add(x.o.Timing.CallBudget)
	restarted := false
	for i, pc := range plan {
		x.o.step(StepCalls, i, len(plan))
		call := m.Call{Phase: pc.phase, Kind: pc.kind, Name: textsafe.Text(pc.name, 512), Args: pc.args, ArgsValid: pc.valid}
		switch {
		case seg == nil:
			call.Outcome, call.Detail = m.CallSkipped, "the server could not be restarted"
		case time.Now().After(deadline) || ctx.Err() != nil:
			call.Outcome, call.Detail = m.CallSkipped, "the time budget for calls was used up"
		}
		if call.Outcome != "" {
			x.calls = append(x.calls, call)
			continue
		}
		if isDone(seg.run.Done()) {
			// The server died after the previous call settled.
			next, err := x.restart(ctx, seg, segments)
			if err != nil {
				x.log.Debug("restart failed", "err", err)
				seg = nil
				call.Outcome, call.Detail = m.CallSkipped, "the server could not be restarted"
				x.calls = append(x.calls, call)
				continue
			}
			seg, restarted = next, true
		}
		call.Restarted, restarted = restarted, false
		x.do(ctx, seg, pc, &call)
		x.calls = append(x.calls, call)
		if call.Outcome == m.CallServerDied && i < len(plan)-1 {
			next, err := x.restart(ctx, seg, segments)
			if err != nil {
				x.log.Debug("restart failed", "err", err)
				seg = nil
				continue
			}
			seg, restarted = next, true
		}
	}
	if seg == nil {
		return nil, true
	}
	return seg, isDone(seg.run.Done())
}

// do makes one call in its own window and records the outcome.
func (x *exerciser) do(ctx context.Context, seg *segment, pc plannedCall, call *m.Call) {
	seg.window(pc.phase, time.Now())
	cctx, cancel := context.WithTimeout(ctx, x.o.Timing.CallTimeout)
	raw, err := seg.client.Call(cctx, pc.method, pc.params)
	cancel()
	var rpc *mcpclient.RPCError
	if err == nil || errors.As(err, &rpc) {
		seg.answered(time.Now())
	}
	switch {
	case err == nil:
		call.Outcome = m.CallOK
		x.result(seg, pc, raw, call)
	case errors.As(err, &rpc) && rpc.Code == mcpclient.CodeTooLarge:
		call.Outcome = m.CallTooLarge
	case errors.As(err, &rpc):
		call.Outcome, call.Detail = m.CallError, textsafe.Text(x.cs.Redact(rpc.Message), 200)
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
}

// settle keeps the call's window open until its effects have landed
// (settle.go).
func (x *exerciser) settle(ctx context.Context, seg *segment) {
	settleWindow(ctx, seg.run.Done(), runActivity(seg.run), defaultSettle)
}

// result records the content types of an answer and looks for canaries in
// it: a server that returns a credential to the model leaks it.
func (x *exerciser) result(seg *segment, pc plannedCall, raw json.RawMessage, call *m.Call) {
	for _, h := range canary.NewFinder(x.cs.All()).Find(raw) {
		seg.mcpHits[pc.phase] = append(seg.mcpHits[pc.phase], m.CanaryHit{Canary: h.Canary, How: m.HowMCPOutput,
			Evidence: pc.method + " " + textsafe.Text(pc.name, 200), Encoding: h.Encoding})
	}
	// The model reads what a call returns: its text is judged like a
	// description.
	seg.ch.Result(pc.method, raw)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
		Messages []struct {
			Content struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
		Contents []struct {
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return
	}
	add := func(t string) {
		t = textsafe.Text(t, 40)
		if !slices.Contains(call.Content, t) && len(call.Content) < 10 {
			call.Content = append(call.Content, t)
		}
	}
	for _, c := range res.Content {
		add(c.Type)
	}
	for _, msg := range res.Messages {
		add(msg.Content.Type)
	}
	for _, c := range res.Contents {
		if c.Text != nil {
			add("text")
		}
		if c.Blob != nil {
			add("blob")
		}
	}
	slices.Sort(call.Content)
	if res.IsError {
		call.Outcome = m.CallError
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
