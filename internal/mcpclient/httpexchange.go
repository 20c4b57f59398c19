package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// exchange POSTs one message and feeds what comes back to the Client.
func (t *HTTPTransport) exchange(body []byte, h head, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(t.ctx, timeout)
	defer cancel()
	key := ""
	if h.isRequest() {
		key = idKey(h.ID)
		t.mu.Lock()
		t.inflight[key] = cancel
		t.mu.Unlock()
		defer func() { t.mu.Lock(); delete(t.inflight, key); t.mu.Unlock() }()
	}
	resp, err := t.post(ctx, body, h)
	for err != nil && h.isOpening() && t.opts.RetryInitialize && ctx.Err() == nil {
		t.noteFailure(err)
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
			resp, err = t.post(ctx, body, h)
		}
	}
	if err != nil {
		t.noteFailure(err)
		if h.isRequest() && ctx.Err() == nil {
			t.fail(h.ID, 0, "sending the request: "+err.Error())
		} else if h.isRequest() && t.ctx.Err() == nil && h.Method != "subscriptions/listen" {
			t.fail(h.ID, 0, "no HTTP answer within "+timeout.String())
		}
		return
	}
	defer resp.Body.Close()
	t.reachOnce.Do(func() { close(t.reachedCh) })
	t.noteAnswer(resp, h)
	t.read(resp, h)
}

// read feeds the answer's body to the Client and fails the request when
// the body did not answer it, with the status and what the body said.
func (t *HTTPTransport) read(resp *http.Response, h head) {
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		// A 2025-era request accepted without a body was always left to
		// its deadline; a modern one has nowhere else to be answered.
		if h.isRequest() && h.version != "" {
			t.fail(h.ID, resp.StatusCode, "accepted without an answer")
		}
		return
	}
	body := io.LimitReader(resp.Body, t.opts.MaxBody)
	var a answer
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		a = t.readEvents(body, h.ID)
	} else {
		a = t.readJSON(body, h.ID)
	}
	if h.isRequest() && !a.answered && t.ctx.Err() == nil {
		msg := noAnswer
		if a.errMessage != "" {
			msg = a.errMessage
		}
		t.fail(h.ID, resp.StatusCode, msg)
	}
}

// noteAnswer counts the status and keeps a 2025-era session id.
func (t *HTTPTransport) noteAnswer(resp *http.Response, h head) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.statuses[resp.StatusCode]++
	if h.version == "" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && validSessionID(sid) && t.sessionID == "" {
			t.sessionID = sid
		}
		if h.Method == "initialize" && resp.StatusCode/100 == 2 {
			t.initDone = true
		}
	}
}

func (t *HTTPTransport) noteFailure(err error) {
	t.mu.Lock()
	t.lastErr = truncate(err.Error(), 300)
	t.mu.Unlock()
}

// fail fails the Client's call id with a transport error.
func (t *HTTPTransport) fail(id json.RawMessage, status int, msg string) {
	if t.failFn != nil {
		t.failFn(idKey(id), &RPCError{Code: CodeTransport, Message: statusMessage(status, msg), HTTPStatus: status})
	}
}

// noAnswer is what a transport error says of an HTTP answer that did not
// answer the request.
const noAnswer = "without an answer"

// statusMessage is a transport error's message: "HTTP 404 without an
// answer", "HTTP 400: json-rpc error …" (what the body said), or the
// failure without a status.
func statusMessage(status int, msg string) string {
	switch {
	case status == 0:
		return truncate(msg, 300)
	case msg == noAnswer:
		return fmt.Sprintf("HTTP %d %s", status, msg)
	}
	return truncate(fmt.Sprintf("HTTP %d: %s", status, msg), 300)
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

// errMessageOf is the message of a JSON-RPC error body that answers no
// request of the client's (an id of null, or none), bounded.
func errMessageOf(b []byte) string {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *RPCError       `json:"error"`
	}
	if json.Unmarshal(b, &m) != nil || m.Error == nil {
		return ""
	}
	return fmt.Sprintf("json-rpc error %d: %s", m.Error.Code, truncate(m.Error.Message, 200))
}
