package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/observe"
	"github.com/mcp-audit/mcp-audit/internal/offers"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// session is one surface audit's conversation with the server.
type session struct {
	o       Options
	c       *mcpclient.Client
	obs     *observe.Observer
	cs      *canary.Set
	started time.Time
	opened  bool
	refused string // why the opening failed
	lists   offers.Lists
	windows []classify.Window
	calls   []m.Call
	notes   []string
}

// drive opens the session, reads the lists and the ui:// pages, and makes
// the calls asked for.
func (s *session) drive(ctx context.Context) {
	s.windows = append(s.windows, classify.Window{Name: m.PhaseStartup, Start: s.started})
	octx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
	op, err := s.c.Open(octx, mcpclient.OpenOptions{})
	cancel()
	if err != nil {
		s.refused = textsafe.Text(err.Error(), 300)
		return
	}
	s.opened = true
	s.lists.Init = op.Legacy()
	s.notes = append(s.notes, "opened in the "+string(op.Era)+" protocol era")
	s.lists.Tools = s.list(ctx, "tools/list", "tools")
	if op.Has("prompts") {
		s.lists.Prompts = s.list(ctx, "prompts/list", "prompts")
	}
	if op.Has("resources") {
		s.lists.Resources = s.list(ctx, "resources/list", "resources")
	}
	for _, uri := range uiPages(s.lists.Tools, s.lists.Resources) {
		s.request(ctx, "resource", uri, m.PhaseReadPrefix+textsafe.Text(uri, 512), "resources/read", map[string]any{"uri": uri}, true)
	}
	for _, name := range s.o.Calls {
		s.callTool(ctx, name)
	}
}

// list reads one list to its last page (mcpclient bounds the pages).
func (s *session) list(ctx context.Context, method, key string) []json.RawMessage {
	cctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
	defer cancel()
	items, err := s.c.List(cctx, method, key)
	if err != nil {
		s.notes = append(s.notes, method+" failed: "+textsafe.Text(err.Error(), 200))
	}
	return items
}

// uiPages are the ui:// resources a host would render: those listed, and
// those the tools name (_meta.ui.resourceUri, and the earlier
// _meta["ui/resourceUri"]), each once, at most MaxUIReads.
func uiPages(tools, resources []json.RawMessage) []string {
	var out []string
	add := func(uri string) {
		if strings.HasPrefix(uri, "ui://") && len(uri) <= 2048 && !slices.Contains(out, uri) && len(out) < MaxUIReads {
			out = append(out, uri)
		}
	}
	for _, raw := range resources {
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &r) == nil {
			add(r.URI)
		}
	}
	for _, raw := range tools {
		var t struct {
			Meta struct {
				UI struct {
					ResourceURI string `json:"resourceUri"`
				} `json:"ui"`
				Old string `json:"ui/resourceUri"`
			} `json:"_meta"`
		}
		if json.Unmarshal(raw, &t) == nil {
			add(t.Meta.UI.ResourceURI)
			add(t.Meta.Old)
		}
	}
	return out
}

// callTool calls a tool the caller named, with arguments made from its
// schema.
func (s *session) callTool(ctx context.Context, name string) {
	var schema json.RawMessage
	found := false
	for _, raw := range s.lists.Tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name == name {
			schema, found = t.InputSchema, true
			break
		}
	}
	if !found {
		s.notes = append(s.notes, fmt.Sprintf("--remote-call %s: the server offers no such tool", textsafe.Text(name, 100)))
		return
	}
	args, valid, err := argsynth.Synthesize(schema)
	if err != nil {
		args, valid = json.RawMessage(`{}`), false
	}
	s.request(ctx, "tool", name, m.PhaseCallPrefix+textsafe.Text(name, 256), "tools/call",
		map[string]any{"name": name, "arguments": args}, valid)
}

// request makes one read or call in its own window and records it.
func (s *session) request(ctx context.Context, kind, name, phase, method string, params map[string]any, valid bool) {
	s.windows = append(s.windows, classify.Window{Name: phase, Start: time.Now()})
	call := m.Call{Phase: phase, Kind: kind, Name: textsafe.Text(name, 512), ArgsValid: valid, Content: []string{}}
	if b, err := json.Marshal(params["arguments"]); kind == "tool" && err == nil {
		call.Args = m.CanonicalJSON(b)
	}
	cctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
	raw, err := s.c.Call(cctx, method, params)
	cancel()
	var rpc *mcpclient.RPCError
	switch {
	case err == nil:
		call.Outcome = m.CallOK
		s.obs.Result(method, raw)
		content(&call, raw)
	case errors.As(err, &rpc) && rpc.Code == mcpclient.CodeTooLarge:
		call.Outcome = m.CallTooLarge
	case errors.As(err, &rpc):
		call.Outcome, call.Detail = m.CallError, textsafe.Text(rpc.Message, 200)
	case errors.Is(err, context.DeadlineExceeded):
		call.Outcome = m.CallTimeout
	default:
		call.Outcome, call.Detail = m.CallError, textsafe.Text(err.Error(), 200)
	}
	s.calls = append(s.calls, call)
}

// content records the content types of an answer, and an answer that
// says it failed.
func content(call *m.Call, raw json.RawMessage) {
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
		Contents []struct {
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return
	}
	add := func(t string) {
		if t = textsafe.Text(t, 40); !slices.Contains(call.Content, t) && len(call.Content) < 10 {
			call.Content = append(call.Content, t)
		}
	}
	for _, c := range res.Content {
		add(c.Type)
	}
	for _, c := range res.Contents {
		if c.Blob != nil {
			add("blob")
		} else {
			add("text")
		}
	}
	slices.Sort(call.Content)
	if res.IsError {
		call.Outcome, call.Detail = m.CallError, "the result says it failed (isError)"
	}
}

// manifest is what the session saw, as a surface manifest.
func (s *session) manifest(host string) *m.Manifest {
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Method: m.MethodVersion,
		Target: m.Target{Ecosystem: m.EcosystemRemote, Name: textsafe.Text(host, 256), Entry: []string{}, Transport: s.o.Transport}}
	man.Outcome = m.Outcome{Status: m.StatusOK, Reason: "surface only: the server was not run by the audit"}
	if !s.opened {
		man.Outcome = m.Outcome{Status: m.StatusNoHandshake, Reason: "the opening failed without credentials: " + s.refused}
	}
	offers.Fill(man, &s.lists, s.cs)
	man.Target.Version = man.Server.Version
	man.Calls = s.calls
	observed, sum := s.obs.Records()
	out := classify.Classify(classify.Input{Windows: s.windows, Observed: observed, Canaries: s.cs, LateAlerts: sum.Alerts()})
	man.Phases = out.Phases
	man.Run.Notes = append(s.notes, sum.Notes()...)
	man.Run.NetworkMode = "remote"
	man.Run.DurationMS = time.Since(s.started).Milliseconds()
	man.Coverage = coverage.Compute(man, "surface only: no tool is called without --remote-call")
	m.Canonicalize(man)
	return man
}
