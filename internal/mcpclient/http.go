package mcpclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// The Streamable HTTP transport: every message the client sends is POSTed
// to one endpoint; the answer is a JSON body or a stream of server-sent
// events carrying the response and anything the server sends before it
// (requests, notifications). The transport turns both into the
// newline-delimited stream the Client already reads, so the same bounds,
// noise counting and observations apply to every transport. A 2025-era
// session is spoken as before (Mcp-Session-Id, MCP-Protocol-Version after
// initialize); a message carrying the 2026-07-28 envelope gets that
// revision's headers (httphead.go) and no session.

// CodeTransport marks an error the transport made up for a request whose
// HTTP exchange failed (a status, a refused connection, a timeout), so the
// call fails at once instead of at its deadline.
const CodeTransport = -32098

// HTTPOptions configure the Streamable HTTP transport.
type HTTPOptions struct {
	// URL is the server's MCP endpoint.
	URL string
	// Client sends the requests; its Transport decides how the server is
	// reached (the sandbox dials through its network namespace). Its
	// Timeout is not used: RequestTimeout bounds each exchange.
	Client *http.Client
	// MaxBody bounds one response body (default 16 MiB). Longer bodies are
	// cut; with MaxLine below it, the cut message is handled as oversized.
	MaxBody int64
	// RequestTimeout bounds one POST, response included (default 60 s):
	// an event stream the server keeps open ends there.
	RequestTimeout time.Duration
	// ListenTimeout bounds a subscriptions/listen stream (default 1 h);
	// it holds no slot of Parallel and ends at Close.
	ListenTimeout time.Duration
	// Parallel bounds the exchanges in flight (default 4).
	Parallel int
	// RetryInitialize retries the opening request (initialize or
	// server/discover) while the connection fails (a server just started
	// may not listen yet), until its deadline.
	RetryInitialize bool
}

// HTTPTransport carries a Client's messages over Streamable HTTP.
type HTTPTransport struct {
	opts   HTTPOptions
	pr     *io.PipeReader
	pw     *io.PipeWriter
	in     feed // writes pw
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	run    exchanges
	book   *headerBook // the Client's x-mcp-header declarations

	mu        sync.Mutex
	sessionID string
	initDone  bool
	statuses  map[int]int
	inflight  map[string]context.CancelFunc // request id -> its exchange
	reachedCh chan struct{}
	reachOnce sync.Once
	lastErr   string
	// failFn fails a pending call of the Client out of band, so a made-up
	// error is never mistaken for something the server said.
	failFn func(id string, e *RPCError)
	// maxLine is the Client's: a longer message is failed by the Client
	// itself (as oversized), not by the transport.
	maxLine int
}

// maxSessionID bounds the Mcp-Session-Id the client echoes back.
const maxSessionID = 256

// NewHTTP returns a client speaking Streamable HTTP to opts.URL, and its
// transport, which the caller closes after the client.
func NewHTTP(opts HTTPOptions, co Options) (*Client, *HTTPTransport) {
	t := NewHTTPTransport(opts)
	if co.MaxLine <= 0 {
		co.MaxLine = 8 << 20
	}
	t.maxLine = co.MaxLine
	c := New(t, t, co)
	t.failFn, t.book = c.failAfter(t.in.written), c.book
	return c, t
}

// NewSession returns a second, independent client and transport to the
// same endpoint, with its own options: a session of its own (the other
// era of a dual-era server, side by side).
func (t *HTTPTransport) NewSession(co Options) (*Client, *HTTPTransport) {
	return NewHTTP(t.opts, co)
}

// NewHTTPTransport returns a transport; it is both the Client's reader and
// its writer.
func NewHTTPTransport(opts HTTPOptions) *HTTPTransport {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 16 << 20
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 60 * time.Second
	}
	if opts.ListenTimeout <= 0 {
		opts.ListenTimeout = time.Hour
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPTransport{opts: opts, pr: pr, pw: pw, in: feed{pw: pw}, ctx: ctx, cancel: cancel, book: newHeaderBook(),
		sem: make(chan struct{}, opts.Parallel), statuses: map[int]int{}, inflight: map[string]context.CancelFunc{},
		reachedCh: make(chan struct{})}
}

// Read returns the server's messages, one per line.
func (t *HTTPTransport) Read(p []byte) (int, error) { return t.pr.Read(p) }

// Write sends one message (the Client writes exactly one per call). It
// returns once the exchange has started; its answer arrives through Read.
// A subscriptions/listen stream holds no slot: it stays open.
func (t *HTTPTransport) Write(p []byte) (int, error) {
	body := bytes.Clone(p)
	h := parseHead(body)
	if h.Method == "subscriptions/listen" && h.isRequest() {
		if !t.run.goRun(func() { t.exchange(body, h, t.opts.ListenTimeout) }) {
			return 0, ErrClosed
		}
		return len(p), nil
	}
	select {
	case t.sem <- struct{}{}:
	case <-t.ctx.Done():
		return 0, ErrClosed
	}
	if !t.run.goRun(func() {
		defer func() { <-t.sem }()
		t.exchange(body, h, t.opts.RequestTimeout)
	}) {
		<-t.sem
		return 0, ErrClosed
	}
	return len(p), nil
}

// CloseWrite does nothing: HTTP has no input stream to end.
func (t *HTTPTransport) CloseWrite() error { return nil }

// Close aborts the exchanges in flight and ends the Client's input.
func (t *HTTPTransport) Close() error {
	t.cancel()
	t.run.close()
	return t.pw.Close()
}

// SessionID is the Mcp-Session-Id the server assigned, if any.
func (t *HTTPTransport) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// Statuses counts the HTTP statuses of the server's answers.
func (t *HTTPTransport) Statuses() map[int]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int]int, len(t.statuses))
	for k, v := range t.statuses {
		out[k] = v
	}
	return out
}

// reached is closed once the server answered a POST (any status): from
// then on, silence is the server's, not a server still starting.
func (t *HTTPTransport) reached() <-chan struct{} { return t.reachedCh }

// lastError is the last failure to reach the server, for an opening that
// ran out of time while retrying.
func (t *HTTPTransport) lastError() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastErr
}

// cancelRequest aborts the exchange of request id: closing the response
// stream is the modern revision's cancellation on HTTP.
func (t *HTTPTransport) cancelRequest(id string) bool {
	t.mu.Lock()
	cancel := t.inflight[id]
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}
