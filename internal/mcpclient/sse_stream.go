package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// stream reads the event stream for the transport's life: the endpoint
// event, then the server's messages. Its end is the session's end.
func (t *SSETransport) stream() {
	defer t.pw.Close()
	named := false
	defer func() {
		if !named {
			close(t.failed)
		}
	}()
	ctx, cancel := context.WithTimeout(t.ctx, t.opts.StreamTimeout)
	defer cancel()
	resp, err := t.get(ctx)
	if err != nil {
		t.noteFailure(err)
		return
	}
	defer resp.Body.Close()
	if ct := strings.ToLower(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.noteFailure(fmt.Errorf("GET %s: HTTP %d %s, not an event stream", t.opts.URL, resp.StatusCode, truncate(ct, 60)))
		return
	}
	_ = scanEvents(io.LimitReader(resp.Body, t.opts.MaxStream), t.maxLine+keepEnds, func(event string, data []byte) bool {
		switch event {
		case "endpoint":
			t.observe(Observation{Channel: ChanTransport, Method: event, Data: bytes.Clone(data), Size: len(data), Source: SourceSSE})
			if named {
				return true
			}
			u, err := t.resolve(data)
			if err != nil {
				t.noteFailure(err)
				return false
			}
			t.endpoint, named = u, true
			close(t.ready)
		case "", "message":
			t.line(data)
		default:
			t.observe(Observation{Channel: ChanTransport, Method: event, Data: bytes.Clone(data), Size: len(data), Source: SourceSSE})
		}
		return true
	})
}

// get opens the stream, retrying while the connection fails if asked.
func (t *SSETransport) get(ctx context.Context) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.opts.URL, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err := t.opts.Client.Do(req)
		if err == nil || !t.opts.RetryConnect || ctx.Err() != nil {
			return resp, err
		}
		t.noteFailure(err)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// resolve reads the endpoint event: a URL relative to the stream's, on
// the same origin (a server cannot send the client's messages elsewhere).
func (t *SSETransport) resolve(data []byte) (*url.URL, error) {
	base, err := url.Parse(t.opts.URL)
	if err != nil {
		return nil, err
	}
	ref, err := url.Parse(strings.TrimSpace(truncate(string(data), 2048)))
	if err != nil {
		return nil, fmt.Errorf("endpoint event: %w", err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return nil, fmt.Errorf("endpoint event names another origin (%s://%s)", truncate(u.Scheme, 20), truncate(u.Host, 100))
	}
	return u, nil
}

// line passes one message to the Client.
func (t *SSETransport) line(b []byte) {
	b = bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, bytes.TrimSpace(b))
	if len(b) == 0 {
		return
	}
	_ = t.in.line(b)
}
