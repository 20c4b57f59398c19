package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The HTTP+SSE transport of revision 2024-11-05, still served by some
// published servers: the client GETs an event stream, whose first
// "endpoint" event names where to POST messages; every answer, request
// and notification of the server arrives on that one stream. Like the
// Streamable HTTP transport it turns the stream into lines for the
// Client, bounded per event (the Client's MaxLine), in total (MaxStream)
// and in time (StreamTimeout).

// SSEOptions configure the HTTP+SSE transport.
type SSEOptions struct {
	// URL is the server's event-stream endpoint (often /sse).
	URL string
	// Client sends the requests (see HTTPOptions.Client).
	Client *http.Client
	// MaxStream bounds what is read from the stream over its life
	// (default 256 MiB); StreamTimeout its duration (default 1 h).
	MaxStream     int64
	StreamTimeout time.Duration
	// RequestTimeout bounds one POST (default 60 s).
	RequestTimeout time.Duration
	// RetryConnect retries the GET while the connection fails (a server
	// just started may not listen yet), within StreamTimeout.
	RetryConnect bool
}

// SSETransport carries a Client's messages over HTTP+SSE.
type SSETransport struct {
	opts    SSEOptions
	pr      *io.PipeReader
	pw      *io.PipeWriter
	in      feed // writes pw
	ctx     context.Context
	cancel  context.CancelFunc
	run     exchanges
	maxLine int
	// endpoint is set once, then ready is closed; failed is closed when
	// the stream ended without one.
	endpoint *url.URL
	ready    chan struct{}
	failed   chan struct{}
	mu       sync.Mutex
	lastErr  string
	failFn   func(id string, e *RPCError)
	observe  func(Observation)
}

// NewSSE returns a client speaking HTTP+SSE to opts.URL, and its
// transport, which the caller closes after the client. The stream is
// opened at once.
func NewSSE(opts SSEOptions, co Options) (*Client, *SSETransport) {
	if opts.MaxStream <= 0 {
		opts.MaxStream = 256 << 20
	}
	if opts.StreamTimeout <= 0 {
		opts.StreamTimeout = time.Hour
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 60 * time.Second
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if co.MaxLine <= 0 {
		co.MaxLine = 8 << 20
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t := &SSETransport{opts: opts, pr: pr, pw: pw, in: feed{pw: pw}, ctx: ctx, cancel: cancel, maxLine: co.MaxLine,
		ready: make(chan struct{}), failed: make(chan struct{})}
	c := New(t, t, co)
	t.failFn, t.observe = c.failAfter(t.in.written), c.observe
	t.run.goRun(t.stream)
	return c, t
}

// Read returns the server's messages, one per line.
func (t *SSETransport) Read(p []byte) (int, error) { return t.pr.Read(p) }

// Write POSTs one message to the endpoint, once the stream named it.
func (t *SSETransport) Write(p []byte) (int, error) {
	body := bytes.Clone(bytes.TrimSpace(p))
	h := parseHead(body)
	if !t.run.goRun(func() { t.post(body, h) }) {
		return 0, ErrClosed
	}
	return len(p), nil
}

// Close ends the stream and the exchanges in flight.
func (t *SSETransport) Close() error {
	t.cancel()
	t.run.close()
	return t.pw.Close()
}

// Endpoint is where messages are posted ("" before the endpoint event).
func (t *SSETransport) Endpoint() string {
	select {
	case <-t.ready:
		return t.endpoint.String()
	default:
		return ""
	}
}

// reached is closed once the stream named its endpoint.
func (t *SSETransport) reached() <-chan struct{} { return t.ready }

func (t *SSETransport) lastError() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastErr
}

func (t *SSETransport) noteFailure(err error) {
	t.mu.Lock()
	t.lastErr = truncate(err.Error(), 300)
	t.mu.Unlock()
}

func (t *SSETransport) post(body []byte, h head) {
	select {
	case <-t.ready:
	case <-t.failed:
		t.fail(h, 0, "the event stream ended before naming its endpoint: "+t.lastError())
		return
	case <-t.ctx.Done():
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		t.fail(h, 0, err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.opts.Client.Do(req)
	if err != nil {
		t.noteFailure(err)
		t.fail(h, 0, "sending the request: "+err.Error())
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		t.fail(h, resp.StatusCode, "the message was refused")
	}
}

// fail fails a request the stream will not answer.
func (t *SSETransport) fail(h head, status int, msg string) {
	if h.isRequest() && t.failFn != nil && t.ctx.Err() == nil {
		t.failFn(idKey(h.ID), &RPCError{Code: CodeTransport, Message: statusMessage(status, msg), HTTPStatus: status})
	}
}

// ShouldTrySSE reports whether an opening over Streamable HTTP failed the
// way a server that speaks only the 2024-11-05 transport fails: its POST
// was refused with 400, 404 or 405 and no JSON-RPC error.
func ShouldTrySSE(err error) bool {
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeTransport {
		return false
	}
	switch rpc.HTTPStatus {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return rpc.Message == statusMessage(rpc.HTTPStatus, noAnswer)
	}
	return false
}
