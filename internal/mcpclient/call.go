package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

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
	if c.opts.OnSend != nil {
		c.opts.OnSend(b)
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

// Call sends a request and waits for its response until ctx ends. Once
// the session is modern (after Open), params gets the request envelope.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id, ch, err := c.start(nil, method, params)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, id, method, ch)
}

// start sends a request with the given id (nil: the next number) and
// returns the key its answer arrives under.
func (c *Client) start(id any, method string, params any) (string, chan response, error) {
	if c.Era() == EraModern {
		p, err := c.withEnvelope(params)
		if err != nil {
			return "", nil, fmt.Errorf("sending %s: %w", method, err)
		}
		params = p
	}
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return "", nil, ErrClosed
	default:
	}
	if id == nil {
		c.next++
		id = c.next
	}
	key := idKey(mustJSON(id))
	ch := make(chan response, 1)
	c.pending[key] = ch
	c.methods[key] = method
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.write(msg); err != nil {
		c.forgetKey(key)
		return "", nil, fmt.Errorf("sending %s: %w", method, err)
	}
	return key, ch, nil
}

// await waits for the answer to the request sent under key.
func (c *Client) await(ctx context.Context, key, method string, ch chan response) (json.RawMessage, error) {
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
		c.forgetKey(key)
		c.cancel(key, "timeout")
		return nil, ctx.Err()
	}
}

// canceler is a transport that cancels a request by itself (Streamable
// HTTP in the modern era: closing the response stream is the signal).
type canceler interface {
	cancelRequest(id string) bool
}

// cancel tells the server a request is abandoned, so the session stays
// usable: by the transport when it can, else notifications/cancelled.
func (c *Client) cancel(key, reason string) {
	if c.Era() == EraModern {
		if cn, ok := c.w.(canceler); ok && cn.cancelRequest(key) {
			return
		}
	}
	var id any = key
	if n, err := strconv.ParseInt(key, 10, 64); err == nil {
		id = n
	}
	_ = c.Notify("notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
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

// failAfter is a transport's out-of-band failure, delivered only once the
// Client handled every line the transport had given it before: an HTTP
// error body is observed as the answer to the probe it answered, whatever
// the goroutines' timing (the failure would otherwise end the probe
// first). The wait is bounded, so a Client that stopped reading cannot
// hold the failure back.
func (c *Client) failAfter(written func() int64) func(id string, e *RPCError) {
	return func(id string, e *RPCError) {
		c.awaitLines(written(), 2*time.Second)
		c.failPending(id, e)
	}
}

func (c *Client) forgetKey(id string) {
	c.mu.Lock()
	c.forgetLocked(id)
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
