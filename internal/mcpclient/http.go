package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The Streamable HTTP transport (MCP 2025-06-18): every message the client
// sends is POSTed to one endpoint; the answer is a JSON body or a stream of
// server-sent events carrying the response and anything the server sends
// before it (requests, notifications). The transport turns both into the
// newline-delimited stream the Client already reads, so the same bounds,
// noise counting and observations apply to both transports.

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
	// Parallel bounds the exchanges in flight (default 4).
	Parallel int
	// RetryInitialize retries initialize while the connection fails (a
	// server just started may not listen yet), until its deadline.
	RetryInitialize bool
}

// HTTPTransport carries a Client's messages over Streamable HTTP.
type HTTPTransport struct {
	opts   HTTPOptions
	pr     *io.PipeReader
	pw     *io.PipeWriter
	lineMu sync.Mutex // one message per write to pw
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup

	mu        sync.Mutex
	sessionID string
	initDone  bool
	statuses  map[int]int
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
	t.failFn = c.failPending
	return c, t
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
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPTransport{opts: opts, pr: pr, pw: pw, ctx: ctx, cancel: cancel,
		sem: make(chan struct{}, opts.Parallel), statuses: map[int]int{}}
}

// Read returns the server's messages, one per line.
func (t *HTTPTransport) Read(p []byte) (int, error) { return t.pr.Read(p) }

// Write sends one message (the Client writes exactly one per call). It
// returns once the exchange has started; its answer arrives through Read.
func (t *HTTPTransport) Write(p []byte) (int, error) {
	select {
	case t.sem <- struct{}{}:
	case <-t.ctx.Done():
		return 0, ErrClosed
	}
	body := bytes.Clone(p)
	t.wg.Add(1)
	go func() {
		defer func() { <-t.sem; t.wg.Done() }()
		t.exchange(body)
	}()
	return len(p), nil
}

// CloseWrite does nothing: HTTP has no input stream to end.
func (t *HTTPTransport) CloseWrite() error { return nil }

// Close aborts the exchanges in flight and ends the Client's input.
func (t *HTTPTransport) Close() error {
	t.cancel()
	t.wg.Wait()
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

// exchange POSTs one message and feeds what comes back to the Client.
func (t *HTTPTransport) exchange(body []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &head)
	isRequest := head.Method != "" && len(head.ID) > 0
	ctx, cancel := context.WithTimeout(t.ctx, t.opts.RequestTimeout)
	defer cancel()
	resp, err := t.post(ctx, body, head.Method == "initialize")
	for err != nil && head.Method == "initialize" && t.opts.RetryInitialize && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
			resp, err = t.post(ctx, body, true)
		}
	}
	if err != nil {
		if isRequest && t.ctx.Err() == nil {
			t.fail(head.ID, "sending the request: "+err.Error())
		}
		return
	}
	defer resp.Body.Close()
	t.mu.Lock()
	t.statuses[resp.StatusCode]++
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && validSessionID(sid) && t.sessionID == "" {
		t.sessionID = sid
	}
	if head.Method == "initialize" && resp.StatusCode/100 == 2 {
		t.initDone = true
	}
	t.mu.Unlock()
	answered := false
	body2 := io.LimitReader(resp.Body, t.opts.MaxBody)
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return
	case strings.HasPrefix(ct, "text/event-stream"):
		answered = t.readEvents(body2, head.ID)
	default:
		answered = t.readJSON(body2, head.ID)
	}
	if isRequest && !answered && t.ctx.Err() == nil {
		t.fail(head.ID, fmt.Sprintf("HTTP %d without an answer", resp.StatusCode))
	}
}

func (t *HTTPTransport) post(ctx context.Context, body []byte, initialize bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.opts.URL, bytes.NewReader(bytes.TrimSpace(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.mu.Lock()
	if t.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", t.sessionID)
	}
	if !initialize && t.initDone {
		req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	}
	t.mu.Unlock()
	return t.opts.Client.Do(req)
}

// validSessionID: visible ASCII only (the specification's rule), bounded,
// so the header the client echoes cannot carry anything else.
func validSessionID(s string) bool {
	if len(s) > maxSessionID {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// readJSON feeds a JSON body to the Client as one line. Line breaks become
// spaces (inside a valid JSON string there are none). It reports whether
// the body answered id.
func (t *HTTPTransport) readJSON(r io.Reader, id json.RawMessage) bool {
	b, err := io.ReadAll(r)
	if len(bytes.TrimSpace(b)) == 0 {
		return false
	}
	_ = err // a cut or broken body is still passed on: it is evidence
	return t.line(b, id)
}

// maxEventLine bounds one line of an event stream; the rest of a longer
// line is dropped (the event's data is then malformed, and counted).
const maxEventLine = 1 << 20

// readEvents feeds each event's data to the Client as one line. It
// reports whether an event answered id.
func (t *HTTPTransport) readEvents(r io.Reader, id json.RawMessage) bool {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	has, answered := false, false
	flush := func() {
		if has && t.line(data, id) {
			answered = true
		}
		data, has = data[:0], false
	}
	for {
		l, err := readEventLine(br)
		l = bytes.TrimRight(l, "\r\n")
		switch {
		case len(l) == 0 && err == nil:
			flush()
		case bytes.HasPrefix(l, []byte("data")):
			v := l[len("data"):]
			if len(v) > 0 && v[0] != ':' {
				break // a field named e.g. "database": ignored
			}
			v = bytes.TrimPrefix(bytes.TrimPrefix(v, []byte(":")), []byte(" "))
			if has {
				data = append(data, '\n')
			}
			data, has = append(data, v...), true
		}
		if err != nil {
			flush()
			return answered
		}
	}
}

// readEventLine reads one line, keeping at most maxEventLine bytes of it.
func readEventLine(br *bufio.Reader) ([]byte, error) {
	var l []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := maxEventLine - len(l); room > 0 {
			l = append(l, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return l, err
	}
}

// line passes one message to the Client and reports whether it is the
// answer to id.
func (t *HTTPTransport) line(b []byte, id json.RawMessage) bool {
	b = bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, bytes.TrimSpace(b))
	answers := false
	if len(id) > 0 && t.maxLine > 0 && len(b) > t.maxLine {
		// The Client fails the call as too large when it finds the id in
		// the message's head, as it does on stdio.
		m := reTooLongID.FindSubmatch(b[:min(len(b), keepEnds)])
		answers = m != nil && string(m[1]) == idKey(id)
	} else if len(id) > 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		answers = json.Unmarshal(b, &m) == nil && m.Method == "" && idKey(m.ID) == idKey(id)
	}
	t.lineMu.Lock()
	defer t.lineMu.Unlock()
	if _, err := t.pw.Write(append(b, '\n')); err != nil {
		return false
	}
	return answers
}

// fail fails the Client's call id with a transport error.
func (t *HTTPTransport) fail(id json.RawMessage, msg string) {
	if t.failFn != nil {
		t.failFn(idKey(id), &RPCError{Code: CodeTransport, Message: truncate(msg, 300)})
	}
}
