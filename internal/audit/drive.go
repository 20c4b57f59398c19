package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/offers"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// session is what the driver learned over MCP.
type session struct {
	handshake bool
	// Opening is what the session learned when it opened (either era).
	Opening *mcpclient.Opening
	// refused is why the opening failed when the server (or its
	// transport) answered it with an error, rather than not at all.
	refused string
	offers.Lists
	noise int
	notes []string
}

// drive opens the session (internal/mcpclient: the 2026-07-28 opening
// or the 2025 handshake, as o.Protocol chooses) and reads the lists. It
// reports whether the opening was answered and whether the server exited
// meanwhile.
func drive(ctx context.Context, o Options, startupTimeout time.Duration, c *mcpclient.Client, run *sandbox.Run, ses *session) (handshake, exited bool) {
	ictx, cancel := context.WithTimeout(ctx, startupTimeout)
	type openRes struct {
		o   *mcpclient.Opening
		err error
	}
	ch := make(chan openRes, 1)
	go func() {
		op, err := c.Open(ictx, mcpclient.OpenOptions{Protocol: o.Protocol})
		ch <- openRes{op, err}
	}()
	var res openRes
	select {
	case res = <-ch:
	case <-run.Done():
		cancel()
		return false, true
	}
	cancel()
	if res.err != nil {
		refused(ses, res.err)
		select {
		case <-run.Done():
			return false, true
		case <-time.After(200 * time.Millisecond):
		}
		if errors.Is(res.err, mcpclient.ErrClosed) {
			// Output closed but the container is still winding down.
			<-waitOrTimeout(run.Done(), 3*time.Second)
			return false, isDone(run.Done())
		}
		return false, false
	}
	ses.Opening, ses.Init = res.o, res.o.Legacy()
	listAll(ctx, o, c, ses)
	if res.o.Era == mcpclient.EraModern {
		// A modern session hears of list changes on a stream it asks for
		// (a list_changed there re-lists, as on a 2025 session).
		lctx, lcancel := context.WithTimeout(ctx, o.Timing.CallTimeout)
		if _, err := c.Listen(lctx, mcpclient.AllChanges()); err != nil {
			ses.notes = append(ses.notes, "subscriptions/listen failed: "+textsafe.Text(errText(err), 200))
		}
		lcancel()
	}
	return true, isDone(run.Done())
}

// refused records why an opening failed when the server (or its
// transport) answered it, rather than not at all.
func refused(ses *session, err error) {
	var rpc *mcpclient.RPCError
	if !errors.As(err, &rpc) {
		return
	}
	ses.notes = append(ses.notes, "the opening returned an error: "+textsafe.Text(rpc.Message, 200))
	ses.refused = fmt.Sprintf("the server answered the opening with an error: %s (code %d)", textsafe.Text(rpc.Message, 200), rpc.Code)
	if rpc.Code == mcpclient.CodeTransport {
		ses.refused = "the opening failed: " + textsafe.Text(rpc.Message, 200)
	}
}

// listAll reads every list the server's capabilities offer into ses,
// each to its last page.
func listAll(ctx context.Context, o Options, c *mcpclient.Client, ses *session) {
	list := func(method, key string) []json.RawMessage {
		cctx, cancel := context.WithTimeout(ctx, o.Timing.CallTimeout)
		defer cancel()
		items, err := c.List(cctx, method, key)
		var rpc *mcpclient.RPCError
		if errors.As(err, &rpc) && rpc.Code == -32601 && method == "resources/templates/list" {
			return items // optional: many servers with resources have no templates
		}
		if err != nil {
			ses.notes = append(ses.notes, method+" failed: "+textsafe.Text(errText(err), 200))
		}
		return items
	}
	ses.Tools = list("tools/list", "tools")
	if ses.Init.Has("prompts") {
		ses.Prompts = list("prompts/list", "prompts")
	}
	if ses.Init.Has("resources") {
		ses.Resources = list("resources/list", "resources")
		ses.Templates = list("resources/templates/list", "resourceTemplates")
	}
}

func errText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	return err.Error()
}

func waitOrTimeout(done <-chan struct{}, d time.Duration) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
		}
		close(out)
	}()
	return out
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitIdle returns when neither the trace nor the sink's log (the witness run's
// only record) grew for IdleQuiet after IdleMin, at IdleMax, or at the server's exit (true).
func waitIdle(ctx context.Context, o Options, run *sandbox.Run) bool {
	start := time.Now()
	var last int64 = -1
	lastChange := start
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-run.Done():
			return true
		case <-ctx.Done():
			return false
		case now := <-tick.C:
			size, ok := runActivity(run)(ctx)
			if ok && size != last {
				last, lastChange = size, now
			}
			elapsed := now.Sub(start)
			if elapsed >= o.Timing.IdleMax || elapsed >= o.Timing.IdleMin && now.Sub(lastChange) >= o.Timing.IdleQuiet {
				return false
			}
		}
	}
}

// relist reads the lists again after the calls, as a client does when it
// refreshes, so an offer that changes once the server has been used (a
// description that turns into instructions after the first call) is seen.
func (ex *execution) relist(ctx context.Context, seg *segment) {
	if ex.ses.Init == nil || len(ex.p.Manifest.Calls) == 0 {
		return
	}
	later := &session{Lists: offers.Lists{Init: ex.ses.Init}}
	listAll(ctx, ex.o, seg.client, later)
	ex.later = later
}

// maxRelists bounds the listings a server can ask for by announcing
// changes.
const maxRelists = 5

// relistNow lists again right after a call during which the server
// announced that a list changed, as a client does: a server that shows a
// new text only until its next call is seen. The lists are compared with
// the first ones with the others (allListChanges).
func (x *exerciser) relistNow(ctx context.Context, seg *segment) {
	if x.ses.Init == nil || len(x.relisted) >= maxRelists {
		return
	}
	later := &session{Lists: offers.Lists{Init: x.ses.Init}}
	listAll(ctx, x.o, seg.client, later)
	x.relisted = append(x.relisted, later)
}

// listsOf are the sessions' lists (nil for a session not made).
func listsOf(ss []*session) []*offers.Lists {
	out := make([]*offers.Lists, 0, len(ss))
	for _, s := range ss {
		if s != nil {
			out = append(out, &s.Lists)
		}
	}
	return out
}
