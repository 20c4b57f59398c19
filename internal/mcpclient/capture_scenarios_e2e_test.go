package mcpclient

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The captured scenarios: each runs one fixture in one era over one
// transport, drives what the fixture offers, and writes its transcript.

func captureCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// openAndNote opens c and notes the outcome and the probe's timing.
func openAndNote(t *testing.T, ctx context.Context, rec *recorder, c *Client, run *fixtureRun, proto string, startup ...time.Duration) *Opening {
	t.Helper()
	opts := OpenOptions{Protocol: proto, ProbeTimeout: 20 * time.Second, ProbeStartup: 60 * time.Second}
	if len(startup) > 0 {
		opts.ProbeStartup = startup[0]
	}
	o, err := c.Open(ctx, opts)
	if err != nil {
		note(t, rec, "open %s: %v (%s after start)", proto, err, time.Since(run.start).Round(time.Millisecond))
		return nil
	}
	note(t, rec, "open %s: era %s, probe %s in %s (%s after start), late=%v, eras %v", proto, o.Era, o.Probe.Outcome,
		o.Probe.Duration.Round(time.Millisecond), time.Since(run.start).Round(time.Millisecond), o.Probe.Late, o.Eras)
	return o
}

// roundTrip notes how long one more request takes once the server is up.
func roundTrip(t *testing.T, ctx context.Context, rec *recorder, c *Client, method string) {
	t.Helper()
	start := time.Now()
	_, err := c.Call(ctx, method, nil)
	note(t, rec, "%s again once up: %s (err %v)", method, time.Since(start).Round(time.Microsecond), err)
}

func TestCaptureSDK1(t *testing.T) {
	skipUnlessCapture(t)
	for _, transport := range []string{"", "http", "sse"} {
		name := map[string]string{"": "sdk1-legacy-stdio-auto", "http": "sdk1-legacy-http-auto", "sse": "sdk1-legacy-sse-auto"}[transport]
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			run := runFixture(t, rec, "sdk1-legacy", transport, "log-methods")
			c := clientFor(t, rec, run, transport)
			ctx := captureCtx(t)
			if o := openAndNote(t, ctx, rec, c, run, ProtocolAuto); o != nil {
				// A second probe, once the server is up: how fast a 2025
				// server refuses an unknown method.
				start := time.Now()
				_, err := c.callModern(ctx, "server-discover-probe-2", "server/discover", nil)
				note(t, rec, "second probe once up: %s (%v)", time.Since(start).Round(time.Microsecond), err)
				driveAll(t, ctx, rec, c, o)
			}
			time.Sleep(300 * time.Millisecond)
			rec.write(t, name)
		})
	}
}

func clientFor(t *testing.T, rec *recorder, run *fixtureRun, transport string) *Client {
	co := Options{Roots: []string{"file:///home/user/workspace"}}
	if transport != "" {
		return run.httpClient(t, rec, co, transport == "sse")
	}
	c := run.stdioClient(rec, co)
	t.Cleanup(c.Close)
	return c
}

// driveAll lists everything and drives every tool (arguments from a
// small table), every resource and template, and every prompt.
func driveAll(t *testing.T, ctx context.Context, rec *recorder, c *Client, o *Opening) {
	t.Helper()
	tools, err := c.List(ctx, "tools/list", "tools")
	if err != nil {
		note(t, rec, "tools/list: %v", err)
	}
	for _, tool := range tools {
		var tl struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(tool, &tl)
		ex, err := c.Request(ctx, "tools/call", map[string]any{"name": tl.Name, "arguments": argsFor(tl.Name)}, RequestOptions{})
		note(t, rec, "tools/call %s: type %s, %d rounds, stopped %q, task %v, err %v", tl.Name, ex.Meta.Type, len(ex.Rounds), ex.Stopped, ex.Task != nil, err)
	}
	if o.Has("resources") {
		res, _ := c.List(ctx, "resources/list", "resources")
		for _, r := range res {
			var rr struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(r, &rr)
			ex, err := c.Request(ctx, "resources/read", map[string]any{"uri": rr.URI}, RequestOptions{})
			note(t, rec, "resources/read %s: cache %+v, err %v", rr.URI, ParseCacheHint(ex.Result), err)
		}
		_, _ = c.List(ctx, "resources/templates/list", "resourceTemplates")
	}
	if o.Has("prompts") {
		prompts, _ := c.List(ctx, "prompts/list", "prompts")
		for _, p := range prompts {
			var pp struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(p, &pp)
			_, err := c.Request(ctx, "prompts/get", map[string]any{"name": pp.Name}, RequestOptions{})
			note(t, rec, "prompts/get %s: err %v", pp.Name, err)
		}
	}
}

// captureArgs are the arguments each fixture tool is called with.
var captureArgs = map[string]map[string]any{
	"echo":             {"text": "hello"},
	"query":            {"region": "eu-west-1", "sql": "select 1"},
	"lookup":           {"customer": "c-1", "api_key": "sk-fixture-0000"},
	"confirm_delete":   {"path": "notes.txt"},
	"summarize":        {"text": "a long text"},
	"add":              {"a": 2, "b": 3},
	"read_notes":       {"topic": "alpha"},
	"backup_workspace": {"label": "nightly"},
}

func argsFor(tool string) map[string]any {
	if a, ok := captureArgs[tool]; ok {
		return a
	}
	return map[string]any{}
}

// scenario is one fixture run, its opening and what is driven after.
type scenario struct {
	name, fixture, proto string
	http                 bool
	args                 []string
	// listen opens a subscriptions/listen before driving (the fixture's
	// list changes after the first tools/call).
	listen bool
	// startup, if set, is the probe's startup deadline: short, the probe
	// times out while the server starts and its answer comes late.
	startup time.Duration
	then    func(t *testing.T, ctx context.Context, rec *recorder, c *Client, o *Opening)
}

func (s scenario) run(t *testing.T) {
	t.Run(s.name, func(t *testing.T) {
		rec := &recorder{}
		transport := map[bool]string{true: "http"}[s.http]
		run := runFixture(t, rec, s.fixture, transport, s.args...)
		c := clientFor(t, rec, run, transport)
		ctx := captureCtx(t)
		var startup []time.Duration
		if s.startup > 0 {
			startup = append(startup, s.startup)
		}
		if o := openAndNote(t, ctx, rec, c, run, s.proto, startup...); o != nil {
			if o.Era == EraModern {
				roundTrip(t, ctx, rec, c, "server/discover")
			}
			var sub *Subscription
			if s.listen {
				sub = listen(t, ctx, rec, c)
			}
			driveAll(t, ctx, rec, c, o)
			if sub != nil {
				time.Sleep(1500 * time.Millisecond)
				tools, err := c.List(ctx, "tools/list", "tools")
				note(t, rec, "after the change: %d tools (err %v); mirrored %+v; rejected %+v", len(tools), err, c.Mirrored(), c.RejectedTools())
				sub.Close()
				time.Sleep(300 * time.Millisecond)
			}
			if s.then != nil {
				s.then(t, ctx, rec, c, o)
			}
		}
		time.Sleep(300 * time.Millisecond)
		rec.write(t, s.name)
	})
}

func TestCaptureSDK2(t *testing.T) {
	skipUnlessCapture(t)
	for _, s := range []scenario{
		{name: "sdk2-modern-only-stdio-auto", fixture: "sdk2-modern-only", proto: ProtocolAuto, then: completeTopic},
		{name: "sdk2-modern-only-stdio-legacy", fixture: "sdk2-modern-only", proto: ProtocolLegacy},
		{name: "sdk2-modern-only-stdio-listen", fixture: "sdk2-modern-only", proto: ProtocolModern, args: []string{"list-change", "leak-input"}, listen: true},
		{name: "sdk2-modern-only-http-auto", fixture: "sdk2-modern-only", proto: ProtocolAuto, http: true, args: []string{"list-change", "secret-header"}, listen: true},
		{name: "sdk2-modern-only-http-legacy", fixture: "sdk2-modern-only", proto: ProtocolLegacy, http: true},
		{name: "sdk2-dual-era-stdio-auto", fixture: "sdk2-dual-era", proto: ProtocolAuto},
		{name: "sdk2-dual-era-stdio-legacy", fixture: "sdk2-dual-era", proto: ProtocolLegacy},
		{name: "sdk2-dual-era-http-auto", fixture: "sdk2-dual-era", proto: ProtocolAuto, http: true},
		{name: "sdk2-dual-era-http-legacy", fixture: "sdk2-dual-era", proto: ProtocolLegacy, http: true},
		{name: "sdk2-era-split-stdio-modern", fixture: "sdk2-era-split", proto: ProtocolModern},
		{name: "sdk2-era-split-stdio-legacy", fixture: "sdk2-era-split", proto: ProtocolLegacy},
		{name: "sdk2-era-split-control-stdio-modern", fixture: "sdk2-era-split", proto: ProtocolModern, args: []string{"control"}},
		{name: "sdk2-era-split-control-stdio-legacy", fixture: "sdk2-era-split", proto: ProtocolLegacy, args: []string{"control"}},
		{name: "sdk2-task-hider-stdio-auto", fixture: "sdk2-task-hider", proto: ProtocolAuto},
		{name: "sdk2-dual-era-stdio-late", fixture: "sdk2-dual-era", proto: ProtocolAuto, startup: time.Millisecond},
		{name: "sdk2-modern-only-stdio-late", fixture: "sdk2-modern-only", proto: ProtocolAuto, startup: time.Millisecond},
		{name: "sdk2-apps-ui-stdio-auto", fixture: "sdk2-apps-ui", proto: ProtocolAuto, then: readUI},
	} {
		s.run(t)
	}
}

func completeTopic(t *testing.T, ctx context.Context, rec *recorder, c *Client, _ *Opening) {
	comp, err := c.Complete(ctx, TemplateRef("notes://{topic}"), "topic", "a", nil)
	if err == nil {
		note(t, rec, "completion: %v", comp.Values)
	} else {
		note(t, rec, "completion: %v", err)
	}
}

func listen(t *testing.T, ctx context.Context, rec *recorder, c *Client) *Subscription {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sub, err := c.Listen(lctx, AllChanges())
	if err != nil {
		note(t, rec, "listen: %v", err)
		return nil
	}
	note(t, rec, "listen acknowledged: %+v", *sub.Acknowledged())
	return sub
}

func readUI(t *testing.T, ctx context.Context, rec *recorder, c *Client, _ *Opening) {
	ex, err := c.Request(ctx, "resources/read", map[string]any{"uri": "ui://dashboard/app.html"}, RequestOptions{})
	note(t, rec, "read ui://dashboard/app.html: %d bytes, err %v", len(ex.Result), err)
}
