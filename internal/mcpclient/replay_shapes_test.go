package mcpclient

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The revision's new shapes, driven against what the real SDK sent.

// observations collects what a client observes.
type observations struct {
	mu  sync.Mutex
	all []Observation
}

func (o *observations) add(ob Observation) {
	o.mu.Lock()
	o.all = append(o.all, ob)
	o.mu.Unlock()
}

func (o *observations) of(channel, source string) []Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Observation
	for _, ob := range o.all {
		if ob.Channel == channel && ob.Source == source {
			out = append(out, ob)
		}
	}
	return out
}

func openModern(t *testing.T, c *Client) {
	t.Helper()
	if _, err := c.Open(openCtx(t), OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	if c.Era() != EraModern {
		t.Fatalf("era %s", c.Era())
	}
}

func call(t *testing.T, c *Client, tool string) *Exchange {
	t.Helper()
	ex, err := c.Request(openCtx(t), "tools/call", map[string]any{"name": tool, "arguments": argsFor(tool)}, RequestOptions{})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return ex
}

func resultText(raw json.RawMessage) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	var out []string
	for _, c := range r.Content {
		out = append(out, c.Text)
	}
	return strings.Join(out, "\n")
}

// Each input request is observed, answered safely, and the retry echoes
// the requestState; the server's final text shows what it got.
func TestReplayInputRequired(t *testing.T) {
	obs := &observations{}
	c, _ := replayStdio(t, "sdk2-modern-only-stdio-auto", Options{Observe: obs.add, Roots: []string{"file:///home/user/workspace"}})
	openModern(t, c)
	if _, err := c.List(openCtx(t), "tools/list", "tools"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, want string
		in         InputRequest
	}{
		{"confirm_delete", "kept notes.txt", InputRequest{Key: "confirm", Method: "elicitation/create", Mode: "form", Answer: AnswerDeclined}},
		{"summarize", SampledText, InputRequest{Key: "llm", Method: "sampling/createMessage", Answer: AnswerSampled}},
		{"workspace_files", "file:///home/user/workspace", InputRequest{Key: "roots", Method: "roots/list", Answer: AnswerRoots}},
		{"connect_account", "login decline", InputRequest{Key: "login", Method: "elicitation/create", Mode: "url",
			URL: "https://auth.fixture.example/connect?flow=42", Answer: AnswerDeclined}},
	}
	for _, tc := range cases {
		ex := call(t, c, tc.tool)
		if d := cmp.Diff([]Round{{Requests: []InputRequest{tc.in}, StateSize: map[bool]int{true: len("confirm-round-1")}[tc.tool == "confirm_delete"]}}, ex.Rounds); d != "" {
			t.Errorf("%s rounds (-want +got):\n%s", tc.tool, d)
		}
		if !strings.Contains(resultText(ex.Result), tc.want) || ex.Stopped != "" || ex.Meta.Type != ResultInputRequired {
			t.Errorf("%s: %q stopped %q type %s", tc.tool, resultText(ex.Result), ex.Stopped, ex.Meta.Type)
		}
	}
	if got := obs.of(ChanRequest, SourceInputRequired); len(got) != 4 || !strings.Contains(string(got[0].Data), "Delete notes.txt?") {
		t.Errorf("input requests observed: %+v", got)
	}
	if got := obs.of(ChanState, SourceInputRequired); len(got) != 1 || string(got[0].Data) != "confirm-round-1" {
		t.Errorf("request state observed: %+v", got)
	}
	if rq := c.ServerRequests(); len(rq) != 4 || rq[3].URL != "https://auth.fixture.example/connect?flow=42" {
		t.Errorf("server requests %+v", rq)
	}
}

// A task handle is followed to its end; every state it passed through is
// observed, and the completed task's result is the call's.
func TestReplayTask(t *testing.T) {
	obs := &observations{}
	c, r := replayStdio(t, "sdk2-task-hider-stdio-auto", Options{Observe: obs.add})
	openModern(t, c)
	ex := call(t, c, "backup_workspace")
	if ex.Task == nil || !ex.Task.Ended || ex.Task.Final != TaskCompleted || !ex.Task.Solicited || resultText(ex.Result) != "backup complete" {
		t.Fatalf("exchange %+v task %+v", ex, ex.Task)
	}
	msgs := []string{}
	for _, p := range ex.Task.Polls {
		msgs = append(msgs, p.Status+": "+p.StatusMessage)
	}
	if d := cmp.Diff([]string{"working: Backing up (1)", "working: Backing up (2)", "completed: Done"}, msgs); d != "" {
		t.Errorf("polls (-want +got):\n%s", d)
	}
	if got := obs.of(ChanTask, SourceTask); len(got) != 4 || strings.Contains(string(got[3].Data), "backup complete") {
		t.Errorf("task observations (handle and three states, no result): %d %+v", len(got), got)
	}
	if n := strings.Count(strings.Join(r.sentMethods(), ","), "tasks/get"); n != 3 || len(c.Tasks()) != 1 {
		t.Errorf("%d polls, tasks %+v", n, c.Tasks())
	}
}

// The same handle to a client that did not advertise the extension is
// unsolicited: recorded and observed, not polled.
func TestReplayUnsolicitedTask(t *testing.T) {
	obs := &observations{}
	c, r := replayStdio(t, "sdk2-task-hider-stdio-auto", Options{Observe: obs.add, Extensions: map[string]json.RawMessage{}})
	openModern(t, c)
	ex := call(t, c, "backup_workspace")
	if ex.Task == nil || ex.Task.Solicited || ex.Stopped != StopUnsolicited || len(obs.of(ChanTask, SourceUnsolicited)) != 1 {
		t.Fatalf("exchange %+v task %+v", ex, ex.Task)
	}
	if slices.Contains(r.sentMethods(), "tasks/get task-1-7f3a9c") {
		t.Error("an unsolicited task was polled")
	}
}

// A subscription's change notification reaches Observe as a notification
// from the listen stream, on stdio and on HTTP.
func TestReplayListen(t *testing.T) {
	for _, name := range []string{"sdk2-modern-only-stdio-listen", "sdk2-modern-only-http-auto"} {
		t.Run(name, func(t *testing.T) {
			obs := &observations{}
			var c *Client
			var r *replay
			if strings.Contains(name, "http") {
				c, r, _ = replayHTTP(t, name, Options{Observe: obs.add})
			} else {
				c, r = replayStdio(t, name, Options{Observe: obs.add})
			}
			o, err := c.Open(openCtx(t), OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Call(openCtx(t), "server/discover", nil)
			sub, err := c.Listen(openCtx(t), AllChanges())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}, sub.Acknowledged(), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ack (-want +got):\n%s", d)
			}
			// The session as captured: the fixture's list changes after its
			// first call, and the notification arrives during what follows.
			driveAll(t, openCtx(t), &recorder{}, c, o)
			waitFor(t, func() bool {
				return slices.ContainsFunc(obs.of(ChanNotification, SourceListen), func(o Observation) bool { return o.Method == "notifications/tools/list_changed" })
			})
			sub.Close()
			if !strings.Contains(name, "http") {
				waitFor(t, func() bool { return slices.Contains(r.sentMethods(), "notifications/cancelled") })
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// On HTTP, the declared arguments are mirrored into Mcp-Param headers
// exactly as the real server accepted them, and each is recorded.
func TestReplayMirroredHeaders(t *testing.T) {
	c, _, hc := replayHTTP(t, "sdk2-modern-only-http-auto", Options{})
	openModern(t, c)
	_, _ = c.Call(openCtx(t), "server/discover", nil)
	if _, err := c.List(openCtx(t), "tools/list", "tools"); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"echo", "query", "lookup"} {
		call(t, c, tool)
	}
	want := []MirroredArg{
		{Tool: "query", Path: "region", Header: "Mcp-Param-Region", Value: "eu-west-1"},
		{Tool: "lookup", Path: "api_key", Header: "Mcp-Param-Api-Key", Value: "sk-fixture-0000"},
	}
	if d := cmp.Diff(want, c.Mirrored()); d != "" {
		t.Errorf("mirrored (-want +got):\n%s", d)
	}
	hc.check(t)
}
