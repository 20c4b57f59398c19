// Package mcpclient is a small, defensive MCP client for both eras of the
// protocol: the 2025-era handshake (initialize, revision 2025-06-18) and
// the stateless 2026-07-28 revision (server/discover, a _meta envelope on
// every request, input_required results, tasks, subscriptions/listen).
// Open chooses the era (auto probes for the modern one first); the same
// Client then speaks it over stdio (newline-delimited JSON-RPC 2.0),
// Streamable HTTP (both eras' header rules), or the 2024-11-05 HTTP+SSE
// transport.
//
// It is written for hostile peers rather than cooperative ones: lines are
// bounded, lines that are not JSON-RPC are counted and skipped (servers
// print banners on stdout), every call has a deadline, every driven loop
// (input rounds, task polls, listen streams, pagination) is bounded in
// count, bytes and time, responses are kept raw (a tools/list entry an SDK
// would reject is still evidence), and what the server asks of the client
// is answered safely and recorded: roots get the decoy workspace,
// elicitation is declined and a URL never opened, sampling is refused on
// the stream and answered with a fixed harmless text in an input request.
// Everything the server says outside the results of the client's calls
// reaches Options.Observe.
package mcpclient

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"
)

// ProtocolVersion is the 2025-era revision the client asks for in
// initialize. Pinning it keeps the 2025 handshake exactly what it always
// was; the modern revision is reached through Open, never by a newer
// initialize.
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
	// HTTPStatus is the status of the HTTP answer a transport error
	// (CodeTransport) was made from, when there was one; Message then
	// starts "HTTP <status>".
	HTTPStatus int `json:"-"`
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
	// OnSend, if set, sees every message the client sends (for
	// transcripts). It must not keep line.
	OnSend func(line []byte)
	// Observe, if set, sees everything the server says besides the results
	// of the client's calls: its requests, notifications, error answers,
	// lines that are not JSON-RPC, the head and tail of oversized messages,
	// and (2026-07-28) the input requests and requestState of input_required
	// results and the states of tasks. It runs on the reading goroutine, or
	// on the goroutine driving a call, and must not block.
	Observe func(Observation)
	// ClientName and ClientVersion are the clientInfo sent in initialize
	// and in every modern request (default: DefaultClientName,
	// DefaultClientVersion).
	ClientName, ClientVersion string
	// Extensions are the extensions a modern session advertises in its
	// client capabilities: nil means DefaultExtensions, an empty map none.
	// The 2025 handshake never advertises any (it stays what it was).
	Extensions map[string]json.RawMessage
	// LogLevel, if set, asks a modern server for log messages at that
	// level on each request (io.modelcontextprotocol/logLevel); without it
	// the revision forbids them.
	LogLevel string
}

// The clientInfo a popular MCP client sends (Claude Desktop), so a server
// cannot tell the audit from a user by the name its client gives.
const (
	DefaultClientName    = "claude-ai"
	DefaultClientVersion = "0.1.0"
)

// Client is an MCP client session.
type Client struct {
	w     io.Writer
	out   chan []byte
	wdone chan struct{}
	werr  error
	opts  Options
	book  *headerBook // x-mcp-header declarations and what was mirrored

	mu       sync.Mutex
	next     int64
	pending  map[string]chan response
	methods  map[string]string // id -> method of a pending call
	noise    int
	requests []ServerRequest
	closed   chan struct{}
	readErr  error
	stopped  bool
	era      Era
	probeID  string          // id of the modern probe while it is outstanding
	listens  map[string]bool // ids of open subscriptions/listen requests
	subs     []*Subscription
	tasks    []TaskTrace
	heard    chan struct{} // closed at the first line the server wrote
	heardOne sync.Once

	lineMu   sync.Mutex
	handled  int64         // lines read and handled
	lineTick chan struct{} // closed and replaced at each handled line
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
		out: make(chan []byte, 256), wdone: make(chan struct{}), book: newHeaderBook(), listens: map[string]bool{}, heard: make(chan struct{}), lineTick: make(chan struct{})}
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

func (c *Client) heardCh() <-chan struct{} { return c.heard }

func (c *Client) lineHandled() {
	c.lineMu.Lock()
	c.handled++
	close(c.lineTick)
	c.lineTick = make(chan struct{})
	c.lineMu.Unlock()
}

// awaitLines waits until n lines were handled, the input ended or d passed.
func (c *Client) awaitLines(n int64, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		c.lineMu.Lock()
		done, tick := c.handled >= n, c.lineTick
		c.lineMu.Unlock()
		if done {
			return
		}
		select {
		case <-tick:
		case <-c.closed:
			return
		case <-timer.C:
			return
		}
	}
}

// Closed is closed when the server's output ends.
func (c *Client) Closed() <-chan struct{} { return c.closed }

// Era is the era the session speaks since Open (empty before).
func (c *Client) Era() Era {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.era
}

// setEra switches the session's era, and the transport's when it keeps
// per-era state.
func (c *Client) setEra(e Era) {
	c.mu.Lock()
	c.era = e
	c.mu.Unlock()
	if s, ok := c.w.(interface{ setEra(Era) }); ok {
		s.setEra(e)
	}
}

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
			c.heardOne.Do(func() { close(c.heard) })
			c.handleLine(line, tooLong)
		}
		if err == nil {
			c.lineHandled()
			continue
		}
		c.mu.Lock()
		if !errors.Is(err, io.EOF) {
			c.readErr = err
		}
		// Closed first: whoever sees a call fail this way sees the
		// session ended too.
		close(c.closed)
		for id, ch := range c.pending {
			close(ch)
			c.forgetLocked(id)
		}
		c.mu.Unlock()
		return
	}
}
