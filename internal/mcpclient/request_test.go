package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// modernFake is a fake modern server: server/discover, then handle.
func modernFake(t *testing.T, co Options, handle func(req map[string]any, out io.Writer)) *Client {
	t.Helper()
	c := fakeServerWith(t, co, func(req map[string]any, out io.Writer) {
		if req["method"] == "server/discover" {
			reply(out, req["id"], discoverResult)
			return
		}
		handle(req, out)
	})
	if _, err := c.Open(openCtx(t), OpenOptions{Protocol: ProtocolModern}); err != nil {
		t.Fatal(err)
	}
	return c
}

// A hostile server keeps the driver bounded: rounds, requests, state.
func TestRequestBounds(t *testing.T) {
	many := map[string]any{}
	for i := range 40 {
		many[fmt.Sprintf("k%02d", i)] = map[string]any{"method": "roots/list"}
	}
	cases := []struct {
		name   string
		method string
		result any
		calls  int // how many times the method is sent
		stop   string
	}{
		{"always input_required", "tools/call", map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"r": map[string]any{"method": "roots/list"}}}, 4, StopRounds},
		{"state only, forever", "tools/call", map[string]any{"resultType": "input_required", "requestState": "s"}, 4, StopRounds},
		{"too many requests", "tools/call", map[string]any{"resultType": "input_required", "inputRequests": many}, 1, StopRequests},
		{"state too large", "tools/call", map[string]any{"resultType": "input_required", "requestState": strings.Repeat("x", maxRequestState+1)}, 1, StopState},
		{"input_required where it is not allowed", "tools/list", map[string]any{"resultType": "input_required", "requestState": "s"}, 1, StopNotAllowed},
		{"unknown result type", "tools/call", map[string]any{"resultType": "later"}, 1, StopUnknownType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			var states []any
			c := modernFake(t, Options{MaxLine: 1 << 20}, func(req map[string]any, out io.Writer) {
				if req["method"] == tc.method {
					mu.Lock()
					calls++
					states = append(states, req["params"].(map[string]any)["requestState"])
					mu.Unlock()
					b, _ := json.Marshal(tc.result)
					reply(out, req["id"], string(b))
				}
			})
			ex, err := c.Request(openCtx(t), tc.method, map[string]any{"name": "t"}, RequestOptions{MaxRounds: 3})
			mu.Lock()
			defer mu.Unlock()
			if err != nil || ex.Stopped != tc.stop || calls != tc.calls {
				t.Fatalf("err %v stopped %q after %d calls", err, ex.Stopped, calls)
			}
			if tc.name == "state only, forever" && (states[0] != nil || states[1] != "s") {
				t.Errorf("requestState not echoed: %v", states)
			}
		})
	}
}

// A task that never ends is polled a bounded number of times; one that
// asks for input gets each request answered once with tasks/update; a
// task is never cancelled by the client (its work stays observable).
func TestTaskBounds(t *testing.T) {
	var mu sync.Mutex
	var updates, gets int
	var cancelled bool
	c := modernFake(t, Options{}, func(req map[string]any, out io.Writer) {
		mu.Lock()
		defer mu.Unlock()
		switch req["method"] {
		case "tools/call":
			reply(out, req["id"], `{"resultType":"task","taskId":"t1","status":"working","pollIntervalMs":1}`)
		case "tasks/get":
			gets++
			reply(out, req["id"], `{"resultType":"complete","taskId":"t1","status":"input_required","statusMessage":"need it","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"ok?"}}}}`)
		case "tasks/update":
			updates++
			reply(out, req["id"], `{"resultType":"complete"}`)
		case "tasks/cancel":
			cancelled = true
		}
	})
	ex, err := c.Request(openCtx(t), "tools/call", map[string]any{"name": "t"}, RequestOptions{MaxPolls: 4})
	mu.Lock()
	defer mu.Unlock()
	if err != nil || ex.Stopped != StopTaskPolls || gets != 4 || updates != 1 || cancelled || ex.Task.Ended || ex.Task.Final != TaskInputRequired {
		t.Fatalf("err %v ex %+v task %+v gets %d updates %d cancelled %v", err, ex, ex.Task, gets, updates, cancelled)
	}
	if len(ex.Rounds) != 1 || ex.Rounds[0].Requests[0].Answer != AnswerDeclined {
		t.Errorf("rounds %+v", ex.Rounds)
	}
}

func TestTaskFailedAndOutOfTime(t *testing.T) {
	for _, status := range []string{TaskFailed, TaskWorking} {
		t.Run(status, func(t *testing.T) {
			c := modernFake(t, Options{}, func(req map[string]any, out io.Writer) {
				switch req["method"] {
				case "tools/call":
					reply(out, req["id"], `{"resultType":"task","taskId":"t1","status":"working","pollIntervalMs":50}`)
				case "tasks/get":
					reply(out, req["id"], `{"resultType":"complete","taskId":"t1","status":"`+status+`","error":{"code":-1,"message":"boom"}}`)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
			defer cancel()
			ex, err := c.Request(ctx, "tools/call", map[string]any{"name": "t"}, RequestOptions{})
			want := map[string]string{TaskFailed: StopTaskFailed, TaskWorking: StopTaskTime}[status]
			if err != nil || ex.Stopped != want {
				t.Fatalf("err %v stopped %q", err, ex.Stopped)
			}
		})
	}
}

// In the 2025 era a result is what it is: nothing is driven.
func TestRequestLegacyIsCall(t *testing.T) {
	calls := 0
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		switch req["method"] {
		case "initialize":
			reply(out, req["id"], legacyInit)
		case "tools/call":
			calls++
			reply(out, req["id"], `{"resultType":"input_required","requestState":"s"}`)
		}
	})
	if _, err := c.Open(openCtx(t), OpenOptions{Protocol: ProtocolLegacy}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.Request(openCtx(t), "tools/call", map[string]any{"name": "t"}, RequestOptions{})
	if err != nil || calls != 1 || ex.Meta.Type != ResultInputRequired || len(ex.Rounds) != 0 {
		t.Fatalf("err %v calls %d ex %+v", err, calls, ex)
	}
}
