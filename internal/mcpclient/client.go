// Package mcpclient is a small, defensive MCP client over a byte stream
// (the sandboxed server's stdio), speaking newline-delimited JSON-RPC 2.0.
//
// It is written for hostile peers rather than cooperative ones: lines are
// bounded, lines that are not JSON-RPC are counted and skipped (servers
// print banners on stdout), every call has a deadline, responses are kept
// raw (a tools/list entry an SDK would reject is still evidence), and
// requests the server sends to the client are answered safely and recorded:
// roots/list gets the decoy workspace, sampling and elicitation are declined.
package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// ProtocolVersion is the MCP revision the client asks for. Pinning it
// avoids newer discovery handshakes that servers ignoring unknown methods
// never answer.
const ProtocolVersion = "2025-06-18"

// ErrClosed is returned for calls after the server's output ended.
var ErrClosed = errors.New("server closed its output")

// CodeTooLarge marks a response the client discarded for its size.
const CodeTooLarge = -32099

var reTooLongID = regexp.MustCompile(`"id"\s*:\s*"?([0-9]{1,18})`)

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// Options configure a client.
type Options struct {
	// MaxLine bounds one message (default 8 MiB); longer lines are
	// discarded and counted as noise.
	MaxLine int
	// Roots are returned for roots/list, as file:// URIs.
	Roots []string
	// OnLine, if set, sees every line read (for transcripts).
	OnLine func(line []byte, isJSON bool)
	// Observe, if set, sees everything the server says besides the results
	// of the client's calls: its requests, notifications, error answers,
	// lines that are not JSON-RPC, and the head and tail of oversized
	// messages. It runs on the reading goroutine and must not block.
	Observe func(Observation)
	// ClientName and ClientVersion are the clientInfo sent in initialize
	// (default: DefaultClientName, DefaultClientVersion).
	ClientName, ClientVersion string
}

// The clientInfo a popular MCP client sends (Claude Desktop), so a server
// cannot tell the audit from a user by the name its client gives.
const (
	DefaultClientName    = "claude-ai"
	DefaultClientVersion = "0.1.0"
)

// Channels of an Observation.
const (
	ChanRequest      = "request"      // a request from the server (sampling, elicitation, roots)
	ChanNotification = "notification" // a notification (logging, progress, list_changed, …)
	ChanError        = "error"        // a JSON-RPC error answer: message and data
	ChanStdout       = "stdout"       // a line that is not JSON-RPC
	ChanOversized    = "oversized"    // a message longer than MaxLine: its head and tail
)

// Observation is something the server sent outside a call's result.
type Observation struct {
	Channel string
	// Method is the request's or notification's method, or for an error
	// the method of the call it answered (when known).
	Method string
	// Data is the message's params, the error object, the line, or the
	// head and tail of an oversized message joined by a newline.
	Data []byte
	// Size is the message's full length in bytes.
	Size int
}

// ServerRequest is a request the server sent to the client.
type ServerRequest struct {
	Method string
	Time   time.Time
	Answer string // what the client replied: "roots", "declined", "pong", "unsupported"
}

// Client is an MCP client session.
type Client struct {
	w     io.Writer
	out   chan []byte
	wdone chan struct{}
	werr  error
	opts  Options

	mu       sync.Mutex
	next     int64
	pending  map[string]chan response
	methods  map[string]string // id -> method of a pending call
	noise    int
	requests []ServerRequest
	closed   chan struct{}
	readErr  error
	stopped  bool
}

type response struct {
	result json.RawMessage
	err    *RPCError
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// New starts a client reading from r and writing to w.
func New(r io.Reader, w io.Writer, opts Options) *Client {
	if opts.MaxLine <= 0 {
		opts.MaxLine = 8 << 20
	}
	c := &Client{w: w, opts: opts, pending: map[string]chan response{}, methods: map[string]string{}, closed: make(chan struct{}),
		out: make(chan []byte, 256), wdone: make(chan struct{})}
	go c.readLoop(r)
	go c.writeLoop()
	return c
}

// writeLoop owns the writer, so that a server that stops reading its input
// blocks only this goroutine, never the reader or a caller past its
// deadline.
func (c *Client) writeLoop() {
	defer close(c.wdone)
	for b := range c.out {
		if _, err := c.w.Write(b); err != nil {
			c.mu.Lock()
			c.werr = err
			c.mu.Unlock()
			for range c.out {
			}
			return
		}
	}
}

// Closed is closed when the server's output ends.
func (c *Client) Closed() <-chan struct{} { return c.closed }

// Noise is the number of lines that were not JSON-RPC messages.
func (c *Client) Noise() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.noise
}

// ServerRequests returns the requests the server made of the client.
func (c *Client) ServerRequests() []ServerRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ServerRequest(nil), c.requests...)
}

func (c *Client) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.opts.MaxLine)
		if len(line.head) > 0 || tooLong {
			c.handleLine(line, tooLong)
		}
		if err != nil {
			c.mu.Lock()
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			for id, ch := range c.pending {
				close(ch)
				c.forgetLocked(id)
			}
			c.mu.Unlock()
			close(c.closed)
			return
		}
	}
}

// keepEnds is how much of an oversized line is kept at each end: enough
// to find its id, and to search what it starts and ends with.
const keepEnds = 64 << 10

// rawLine is one line read. An oversized line keeps only its head and
// tail; size is its full length.
type rawLine struct {
	head, tail []byte
	size       int
}

// readLine reads one line, discarding the middle of lines longer than max
// but keeping their first and last bytes: the head to find the id of an
// oversized response, both ends to search for what a server hides there.
func readLine(br *bufio.Reader, max int) (rawLine, bool, error) {
	var l rawLine
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		l.size += len(frag)
		switch {
		case !tooLong && l.size <= max:
			l.head = append(l.head, frag...)
		case !tooLong:
			tooLong = true
			all := append(l.head, frag...)
			l.head = all[:min(len(all), keepEnds)]
			l.tail = appendTail(nil, all[len(l.head):])
		default:
			l.tail = appendTail(l.tail, frag)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.head = bytes.TrimSpace(l.head)
		l.tail = bytes.TrimSpace(l.tail)
		return l, tooLong, err
	}
}

// appendTail appends frag to tail, keeping the last keepEnds bytes.
func appendTail(tail, frag []byte) []byte {
	tail = append(tail, frag...)
	if over := len(tail) - keepEnds; over > 0 {
		tail = append(tail[:0], tail[over:]...)
	}
	return tail
}

func (c *Client) handleLine(rl rawLine, tooLong bool) {
	line := rl.head
	var msg message
	isJSON := !tooLong && len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &msg) == nil && msg.JSONRPC == "2.0"
	if c.opts.OnLine != nil {
		c.opts.OnLine(line, isJSON)
	}
	if tooLong {
		c.observe(Observation{Channel: ChanOversized, Data: bytes.Join([][]byte{rl.head, rl.tail}, []byte("\n")), Size: rl.size})
		// An oversized response: fail its call now rather than at its
		// deadline.
		if m := reTooLongID.FindSubmatch(line); m != nil {
			c.mu.Lock()
			ch := c.pending[string(m[1])]
			c.forgetLocked(string(m[1]))
			c.noise++
			c.mu.Unlock()
			if ch != nil {
				ch <- response{err: &RPCError{Code: CodeTooLarge, Message: "response larger than the client accepts"}}
			}
			return
		}
	}
	if !isJSON {
		c.mu.Lock()
		c.noise++
		c.mu.Unlock()
		if !tooLong {
			c.observe(Observation{Channel: ChanStdout, Data: line, Size: rl.size})
		}
		return
	}
	switch {
	case msg.Method != "" && len(msg.ID) > 0:
		c.observe(Observation{Channel: ChanRequest, Method: msg.Method, Data: msg.Params, Size: rl.size})
		c.answer(msg)
	case msg.Method != "":
		// A notification (logging, progress, list_changed): nothing to
		// answer, but what it says is evidence.
		c.observe(Observation{Channel: ChanNotification, Method: msg.Method, Data: msg.Params, Size: rl.size})
	case len(msg.ID) > 0:
		id := idKey(msg.ID)
		c.mu.Lock()
		ch, method := c.pending[id], c.methods[id]
		c.forgetLocked(id)
		c.mu.Unlock()
		if msg.Error != nil {
			b, _ := json.Marshal(msg.Error)
			c.observe(Observation{Channel: ChanError, Method: method, Data: b, Size: rl.size})
		}
		if ch != nil {
			ch <- response{result: msg.Result, err: msg.Error}
		}
	}
}

func (c *Client) observe(o Observation) {
	if c.opts.Observe != nil {
		c.opts.Observe(o)
	}
}

// answer replies to a request from the server.
func (c *Client) answer(msg message) {
	var result any
	var rpcErr *RPCError
	req := ServerRequest{Method: truncate(msg.Method, 100), Time: time.Now()}
	switch msg.Method {
	case "roots/list":
		roots := []map[string]string{}
		for _, r := range c.opts.Roots {
			roots = append(roots, map[string]string{"uri": r, "name": "workspace"})
		}
		result, req.Answer = map[string]any{"roots": roots}, "roots"
	case "sampling/createMessage":
		rpcErr, req.Answer = &RPCError{Code: -1, Message: "User rejected sampling request"}, "declined"
	case "elicitation/create":
		result, req.Answer = map[string]any{"action": "decline"}, "declined"
	case "ping":
		result, req.Answer = map[string]any{}, "pong"
	default:
		rpcErr, req.Answer = &RPCError{Code: -32601, Message: "Method not found"}, "unsupported"
	}
	c.mu.Lock()
	if len(c.requests) < 1000 {
		c.requests = append(c.requests, req)
	}
	c.mu.Unlock()
	out := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
	if rpcErr != nil {
		out["error"] = rpcErr
	} else {
		out["result"] = result
	}
	_ = c.write(out)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// idKey normalizes an id so that 7 and "7" from a sloppy server still
// match the request.
func idKey(raw json.RawMessage) string {
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// ErrInputFull means the server stopped reading its input.
var ErrInputFull = errors.New("server is not reading its input")

func (c *Client) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	werr := c.werr
	c.mu.Unlock()
	if werr != nil {
		return werr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrClosed
	}
	select {
	case c.out <- append(b, '\n'):
		return nil
	default:
		return ErrInputFull
	}
}

// Close stops the writer. It does not close the underlying streams.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.stopped = true
		close(c.out)
	}
}

// Call sends a request and waits for its response until ctx ends.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return nil, ErrClosed
	default:
	}
	c.next++
	id := c.next
	ch := make(chan response, 1)
	c.pending[strconv.FormatInt(id, 10)] = ch
	c.methods[strconv.FormatInt(id, 10)] = method
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.write(msg); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, ErrClosed
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		c.forget(id)
		// Tell the server, so the session stays usable.
		_ = c.Notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "timeout"})
		return nil, ctx.Err()
	}
}

// failPending ends a pending call with an error the transport made up.
func (c *Client) failPending(id string, e *RPCError) {
	c.mu.Lock()
	ch := c.pending[id]
	c.forgetLocked(id)
	c.mu.Unlock()
	if ch != nil {
		ch <- response{err: e}
	}
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	c.forgetLocked(strconv.FormatInt(id, 10))
	c.mu.Unlock()
}

func (c *Client) forgetLocked(id string) {
	delete(c.pending, id)
	delete(c.methods, id)
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.write(msg)
}
