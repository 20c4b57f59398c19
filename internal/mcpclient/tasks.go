package mcpclient

import (
	"context"
	"encoding/json"
	"time"
)

// The tasks extension (io.modelcontextprotocol/tasks): a server may answer
// tools/call with a task handle (resultType "task") and go on working
// after it "returned"; the client polls tasks/get until the task ends.

// Task states.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Bounds of following a task.
const (
	maxTaskID      = 256
	maxTaskMessage = 1000
	minPoll        = 100 * time.Millisecond
	maxPoll        = 5 * time.Second
	maxTasks       = 100
	maxTaskPolls   = 60
)

// Task is a task handle or a tasks/get state.
type Task struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *RPCError       `json:"error,omitempty"`
}

// ParseTask reads a task handle or state (members by their exact names),
// bounding its strings.
func ParseTask(raw json.RawMessage) (*Task, bool) {
	f := fields(raw)
	var t Task
	if json.Unmarshal(f["taskId"], &t.TaskID) != nil || t.TaskID == "" || len(t.TaskID) > maxTaskID {
		return nil, false
	}
	_ = json.Unmarshal(f["status"], &t.Status)
	_ = json.Unmarshal(f["statusMessage"], &t.StatusMessage)
	var ms json.Number
	if json.Unmarshal(f["pollIntervalMs"], &ms) == nil {
		if n, err := ms.Int64(); err == nil {
			t.PollIntervalMs = n
		}
	}
	t.Result = f["result"]
	if e, ok := f["error"]; ok {
		t.Error = &RPCError{}
		_ = json.Unmarshal(e, t.Error)
	}
	t.Status, t.StatusMessage = truncate(t.Status, 40), truncate(t.StatusMessage, maxTaskMessage)
	return &t, true
}

// TaskPoll is one state of a task the client saw.
type TaskPoll struct {
	Time          time.Time
	Status        string
	StatusMessage string
}

// TaskTrace is a task handle the server gave and how the client followed
// it.
type TaskTrace struct {
	ID     string
	Method string // the request answered with the handle
	// Solicited is whether the client could have asked for it: a modern
	// tools/call from a client advertising the tasks extension. Any other
	// handle is unsolicited, recorded and not followed.
	Solicited bool
	Polls     []TaskPoll
	// Final is the last status seen; Ended whether it is terminal.
	Final string
	Ended bool
}

// Tasks returns the task handles the server gave, in order.
func (c *Client) Tasks() []TaskTrace {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]TaskTrace(nil), c.tasks...)
}

func (c *Client) recordTask(t TaskTrace) {
	c.mu.Lock()
	if len(c.tasks) < maxTasks {
		c.tasks = append(c.tasks, t)
	}
	c.mu.Unlock()
}

// followTask polls a task until it ends, within ctx and the poll bound.
func (c *Client) followTask(ctx context.Context, ex *Exchange, raw json.RawMessage, ro RequestOptions) error {
	t, ok := ParseTask(raw)
	if !ok {
		ex.Stopped = StopBadResult
		return nil
	}
	_, advertised := c.extensions()[ExtTasks]
	tr := &TaskTrace{ID: t.TaskID, Method: ex.Method, Solicited: advertised && ex.Method == "tools/call", Final: t.Status}
	ex.Task = tr
	defer func() { c.recordTask(*tr) }()
	source := SourceTask
	if !tr.Solicited {
		source = SourceUnsolicited
	}
	c.observe(Observation{Channel: ChanTask, Method: ex.Method, Data: raw, Size: len(raw), Source: source})
	if !tr.Solicited {
		ex.Stopped = StopUnsolicited
		return nil
	}
	polls := ro.MaxPolls
	if polls <= 0 {
		polls = maxTaskPolls
	}
	return c.poll(ctx, ex, t, polls)
}

func (c *Client) poll(ctx context.Context, ex *Exchange, t *Task, polls int) error {
	tr, answered := ex.Task, map[string]bool{}
	last := *t
	for range polls {
		if sleep(ctx, pollInterval(last.PollIntervalMs)) != nil {
			ex.Stopped = StopTaskTime
			return nil
		}
		raw, err := c.Call(ctx, "tasks/get", map[string]any{"taskId": t.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				ex.Stopped = StopTaskTime
				return nil
			}
			return err
		}
		cur, ok := ParseTask(raw)
		if !ok {
			ex.Stopped = StopBadResult
			return nil
		}
		if len(tr.Polls) == 0 || cur.Status != last.Status || cur.StatusMessage != last.StatusMessage {
			c.observe(Observation{Channel: ChanTask, Method: ex.Method, Data: withoutResult(raw), Size: len(raw), Source: SourceTask})
		}
		tr.Polls = append(tr.Polls, TaskPoll{Time: time.Now(), Status: cur.Status, StatusMessage: cur.StatusMessage})
		tr.Final, last = cur.Status, *cur
		if done := c.taskStep(ctx, ex, cur, raw, answered); done {
			return nil
		}
	}
	ex.Stopped = StopTaskPolls
	return nil
}

// taskStep acts on one state: it answers a task's new input requests with
// tasks/update, and reports whether the task ended.
func (c *Client) taskStep(ctx context.Context, ex *Exchange, cur *Task, raw json.RawMessage, answered map[string]bool) bool {
	switch cur.Status {
	case TaskCompleted:
		ex.Task.Ended, ex.Result = true, cur.Result
		return true
	case TaskFailed, TaskCancelled:
		ex.Task.Ended, ex.Stopped, ex.Result = true, StopTaskFailed, raw
		return true
	case TaskInputRequired:
		ir, err := ParseInputRequired(raw)
		if err != nil {
			return false
		}
		fresh := &InputRequired{}
		for _, e := range ir.Requests {
			if !answered[e.Key] && len(answered) < maxInputRequests*4 {
				answered[e.Key] = true
				fresh.Requests = append(fresh.Requests, e)
			}
		}
		if len(fresh.Requests) == 0 {
			return false
		}
		responses, inputs := c.answerInputs(ex.Method, fresh, SourceTask)
		ex.Rounds = append(ex.Rounds, Round{Requests: inputs})
		_, _ = c.Call(ctx, "tasks/update", map[string]any{"taskId": cur.TaskID, "inputResponses": responses})
	}
	return false
}

// pollInterval follows the server's pollIntervalMs within bounds.
func pollInterval(ms int64) time.Duration {
	ms = min(max(ms, minPoll.Milliseconds()), maxPoll.Milliseconds())
	return time.Duration(ms) * time.Millisecond
}

// withoutResult drops a completed task's result from its observation:
// the result is the call's, returned to the caller.
func withoutResult(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["result"]; !ok {
		return raw
	}
	delete(m, "result")
	b, _ := json.Marshal(m)
	return b
}

// extensions are the extensions the modern envelope advertises.
func (c *Client) extensions() map[string]json.RawMessage {
	if c.opts.Extensions == nil {
		return DefaultExtensions()
	}
	return c.opts.Extensions
}
