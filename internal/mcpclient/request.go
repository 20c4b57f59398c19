package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Exchange is one request driven as a real client drives it: in the
// modern era, its input_required rounds and the task it may have become.
type Exchange struct {
	Method string
	// Result is the final result: the complete one, a completed task's
	// result, or the last result the client could not go on from.
	Result json.RawMessage
	// Meta is the first answer's type, serverInfo and cache hint.
	Meta   ResultMeta
	Rounds []Round
	Task   *TaskTrace
	// Stopped says why the client stopped short of a complete result
	// (Stop*), empty when it got one.
	Stopped string
}

// Why a driven request stopped short.
const (
	StopRounds      = "input_required rounds exhausted"
	StopRequests    = "too many input requests"
	StopState       = "requestState too large to echo"
	StopNotAllowed  = "input_required on a method that does not allow it"
	StopUnknownType = "unknown resultType"
	StopTaskPolls   = "task polls exhausted"
	StopTaskTime    = "task did not end in time"
	StopTaskFailed  = "task failed"
	StopUnsolicited = "unsolicited task handle (not followed)"
	StopBadResult   = "malformed result"
)

// RequestOptions bound a driven request; zero values take the defaults.
type RequestOptions struct {
	MaxRounds int // input_required retries (default 8)
	MaxPolls  int // tasks/get polls (default 60)
}

// mrtrMethods are the requests a server may answer with input_required
// (and, for tools/call, with a task).
var mrtrMethods = []string{"tools/call", "prompts/get", "resources/read"}

// stateOnlyPacing spaces the retries of an input_required result that
// asks for nothing (load shedding), as the SDK client does.
const stateOnlyPacing = 250 * time.Millisecond

// Request sends method and drives it to an end within ctx. In the 2025
// era it is Call. In the modern era an input_required result is answered
// (roots: the decoy workspace; elicitation declined; sampling answered
// with SampledText) and retried with its requestState, a bounded number
// of rounds; a task handle is polled with tasks/get until the task ends
// (bounded), its states observed. The error is the call's; how far the
// client got is in the Exchange.
func (c *Client) Request(ctx context.Context, method string, params any, ro RequestOptions) (*Exchange, error) {
	ex := &Exchange{Method: method}
	raw, err := c.Call(ctx, method, params)
	if err != nil {
		return ex, err
	}
	ex.Meta, ex.Result = ParseMeta(raw), raw
	if c.Era() != EraModern {
		return ex, nil
	}
	base, err := paramsObject(params)
	if err != nil {
		return ex, err
	}
	maxRounds := ro.MaxRounds
	if maxRounds <= 0 {
		maxRounds = 8
	}
	for {
		switch ParseMeta(raw).Type {
		case ResultComplete:
			ex.Result = raw
			return ex, nil
		case ResultTask:
			return ex, c.followTask(ctx, ex, raw, ro)
		case ResultInputRequired:
		default:
			ex.Stopped = StopUnknownType
			return ex, nil
		}
		next, stop := c.nextRound(method, base, raw, ex)
		if stop == "" && len(ex.Rounds) > maxRounds {
			stop = StopRounds
		}
		if stop != "" {
			ex.Stopped, ex.Result = stop, raw
			return ex, nil
		}
		if len(ex.Rounds[len(ex.Rounds)-1].Requests) == 0 {
			if err := sleep(ctx, stateOnlyPacing); err != nil {
				return ex, err
			}
		}
		if raw, err = c.Call(ctx, method, next); err != nil {
			return ex, err
		}
		ex.Result = raw
	}
}

// nextRound answers one input_required result and builds the retry's
// params, or says why there is none.
func (c *Client) nextRound(method string, base map[string]any, raw json.RawMessage, ex *Exchange) (map[string]any, string) {
	ir, err := ParseInputRequired(raw)
	if err != nil {
		return nil, StopBadResult
	}
	responses, inputs := c.answerInputs(method, ir, SourceInputRequired)
	round := Round{Requests: inputs}
	if ir.State != nil {
		round.StateSize = len(*ir.State)
	}
	ex.Rounds = append(ex.Rounds, round)
	switch {
	case !slices.Contains(mrtrMethods, method):
		return nil, StopNotAllowed
	case ir.TooMany:
		return nil, StopRequests
	case ir.BigState:
		return nil, StopState
	}
	next := make(map[string]any, len(base)+2)
	for k, v := range base {
		next[k] = v
	}
	if len(ir.Requests) > 0 {
		next["inputResponses"] = responses
	}
	if ir.State != nil {
		next["requestState"] = *ir.State
	}
	return next, ""
}

// paramsObject is params as a JSON object (nil: empty), so a retry can
// add to it.
func paramsObject(params any) (map[string]any, error) {
	out := map[string]any{}
	if params == nil {
		return out, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("params must be an object to retry: %w", err)
	}
	delete(out, "_meta")
	return out, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
