package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer reads requests and answers them with handler, writing extra
// raw lines first when the handler returns them.
func fakeServer(t *testing.T, handle func(req map[string]any, out io.Writer)) *Client {
	t.Helper()
	return fakeServerWith(t, Options{MaxLine: 1024, Roots: []string{"file:///home/dev/workspace"}}, handle)
}

// fakeServerWith is fakeServer with the client's options.
func fakeServerWith(t *testing.T, co Options, handle func(req map[string]any, out io.Writer)) *Client {
	t.Helper()
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	go func() {
		sc := bufio.NewScanner(sr)
		for sc.Scan() {
			var req map[string]any
			if json.Unmarshal(sc.Bytes(), &req) == nil {
				handle(req, sw)
			}
		}
		sw.Close()
	}()
	t.Cleanup(func() { cw.Close(); sw.Close() })
	return New(cr, cw, co)
}

func reply(out io.Writer, id any, result string) {
	b, _ := json.Marshal(id)
	io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(b)+`,"result":`+result+"}\n")
}

func TestHandshakeWithNoiseAndPagination(t *testing.T) {
	var gotRoots string
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		switch req["method"] {
		case "initialize":
			io.WriteString(out, "Server v1 starting on stdio...\n")
			io.WriteString(out, strings.Repeat("x", 5000)+"\n") // too long: skipped
			io.WriteString(out, `{"not":"jsonrpc"}`+"\n")
			// Answer with the id as a string, and ask for roots first.
			io.WriteString(out, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`+"\n")
			reply(out, req["id"].(float64), `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"fake","version":"0.1"}}`)
		case "tools/list":
			params, _ := req["params"].(map[string]any)
			if params == nil {
				reply(out, req["id"], `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`)
			} else {
				reply(out, req["id"], `{"tools":[{"name":"b","description":"invalid schema kept","inputSchema":42}]}`)
			}
		case nil:
			if req["id"] == "srv-1" {
				b, _ := json.Marshal(req["result"])
				gotRoots = string(b)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	init, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo.Name != "fake" || !init.Has("tools") || init.Has("prompts") {
		t.Errorf("init: %+v", init)
	}
	tools, err := c.List(ctx, "tools/list", "tools")
	if err != nil || len(tools) != 2 || !strings.Contains(string(tools[1]), `"inputSchema":42`) {
		t.Fatalf("tools %s err %v", tools, err)
	}
	if c.Noise() != 3 {
		t.Errorf("noise %d, want 3", c.Noise())
	}
	if rq := c.ServerRequests(); len(rq) != 1 || rq[0].Method != "roots/list" || rq[0].Answer != "roots" {
		t.Errorf("server requests %+v", rq)
	}
	if !strings.Contains(gotRoots, "file:///home/dev/workspace") {
		t.Errorf("roots answer %q", gotRoots)
	}
}

func TestTimeoutSendsCancelAndSessionSurvives(t *testing.T) {
	cancelled := make(chan bool, 1)
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		switch req["method"] {
		case "tools/call":
			// never answers
		case "notifications/cancelled":
			cancelled <- true
		case "ping":
			reply(out, req["id"], `{}`)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "hang"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline, got %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(2 * time.Second):
		t.Fatal("no notifications/cancelled sent")
	}
	if _, err := c.Call(context.Background(), "ping", nil); err != nil {
		t.Fatalf("session unusable after timeout: %v", err)
	}
}

func TestServerExitFailsPendingCalls(t *testing.T) {
	r, w := io.Pipe()
	c := New(r, io.Discard, Options{})
	go func() { time.Sleep(50 * time.Millisecond); w.Close() }()
	if _, err := c.Call(context.Background(), "initialize", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if _, err := c.Call(context.Background(), "ping", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed after close, got %v", err)
	}
}

// A call the server's exit failed is seen with Closed already closed: the
// auditor restarts the server when it sees Closed after such a call, and
// its next call must not find the old session closed only then (a batch's
// call after a crash was "server died" in one run, "restarted" in another).
func TestClosedBeforePendingCallsFail(t *testing.T) {
	for i := 0; i < 1000; i++ {
		r, w := io.Pipe()
		c := New(r, io.Discard, Options{})
		go func() { time.Sleep(200 * time.Microsecond); w.Close() }()
		if _, err := c.Call(context.Background(), "tools/call", nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("want ErrClosed, got %v", err)
		}
		select {
		case <-c.Closed():
		default:
			t.Fatalf("run %d: the call failed before Closed", i)
		}
	}
}

func TestRPCError(t *testing.T) {
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		b, _ := json.Marshal(req["id"])
		io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(b)+`,"error":{"code":-32601,"message":"Method not found"}}`+"\n")
	})
	_, err := c.Call(context.Background(), "prompts/list", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32601 {
		t.Fatalf("got %v", err)
	}
}

func TestOversizedResponseFailsFast(t *testing.T) {
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		b, _ := json.Marshal(req["id"])
		io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(b)+`,"result":{"content":[{"type":"text","text":"`+strings.Repeat("A", 4096)+`"}]}}`+"\n")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Call(ctx, "tools/call", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeTooLarge || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

// TestObserveEverythingBesidesResults: requests, notifications, error
// answers (with the method they answered) and stray stdout lines are
// observed; an oversized line keeps its head and tail.
func TestObserveEverythingBesidesResults(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	var mu sync.Mutex
	var got []Observation
	c := New(cr, cw, Options{MaxLine: 1 << 20, Observe: func(o Observation) {
		mu.Lock()
		got = append(got, o)
		mu.Unlock()
	}})
	go func() {
		sc := bufio.NewScanner(sr)
		for sc.Scan() {
			var req map[string]any
			if json.Unmarshal(sc.Bytes(), &req) != nil || req["method"] == nil {
				continue
			}
			id, _ := json.Marshal(req["id"])
			io.WriteString(sw, "banner SECRET-1\n")
			io.WriteString(sw, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"SECRET-2"}}`+"\n")
			io.WriteString(sw, `{"jsonrpc":"2.0","id":77,"method":"sampling/createMessage","params":{"systemPrompt":"SECRET-3"}}`+"\n")
			io.WriteString(sw, `{"jsonrpc":"2.0","method":"x","params":{"pad":"`+strings.Repeat("A", 2<<20)+`SECRET-4"}}`+"\n")
			io.WriteString(sw, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":1,"message":"SECRET-5"}}`+"\n")
		}
	}()
	t.Cleanup(func() { cw.Close(); sw.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", nil); err == nil {
		t.Fatal("want the error answer")
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{ChanStdout: "SECRET-1", ChanNotification: "SECRET-2", ChanRequest: "SECRET-3",
		ChanOversized: "SECRET-4", ChanError: "SECRET-5"}
	for _, o := range got {
		if s, ok := want[o.Channel]; ok && strings.Contains(string(o.Data), s) {
			delete(want, o.Channel)
			if o.Channel == ChanError && o.Method != "tools/call" {
				t.Errorf("error observed for method %q", o.Method)
			}
			if o.Channel == ChanOversized && (o.Size < 2<<20 || len(o.Data) > 2*keepEnds+1) {
				t.Errorf("oversized: size %d, kept %d bytes", o.Size, len(o.Data))
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("not observed: %v", want)
	}
}

// TestListPaginationBounded: a server that never stops handing out new
// cursors is read for maxPages pages; one that repeats its cursor, once.
func TestListPaginationBounded(t *testing.T) {
	for name, tc := range map[string]struct {
		cursor    func(n int) string
		wantPages int
	}{
		"endless":  {func(n int) string { return "p" + strings.Repeat("x", n) }, maxPages},
		"repeats":  {func(int) string { return "same" }, 2},
		"one page": {func(int) string { return "" }, 1},
	} {
		t.Run(name, func(t *testing.T) {
			pages := 0
			c := fakeServer(t, func(req map[string]any, out io.Writer) {
				pages++
				next, _ := json.Marshal(tc.cursor(pages))
				reply(out, req["id"], `{"prompts":[{"name":"p"}],"nextCursor":`+string(next)+`}`)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			items, err := c.List(ctx, "prompts/list", "prompts")
			if err != nil || pages != tc.wantPages || len(items) != tc.wantPages {
				t.Errorf("pages %d items %d err %v, want %d", pages, len(items), err, tc.wantPages)
			}
		})
	}
}
