package mcpclient

import (
	"bytes"
	"encoding/json"
)

// handleLine dispatches one message the server sent: a response to its
// call, a request to answer, a notification, or noise; all of it but the
// results of calls is observed.
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
		// A notification (logging, progress, list_changed, a subscription's
		// notifications): nothing to answer, but what it says is evidence.
		c.observe(Observation{Channel: ChanNotification, Method: msg.Method, Data: msg.Params, Size: rl.size, Source: c.notificationSource(msg.Params)})
		if msg.Method == "notifications/subscriptions/acknowledged" {
			c.acknowledge(msg.Params)
		}
	case len(msg.ID) > 0:
		c.handleResponse(msg, rl.size)
	}
}

// handleResponse delivers a response to its call. An error answer is
// observed, marked when it answers the modern probe or arrives while the
// probe is the only thing asked (an HTTP error body without an id).
func (c *Client) handleResponse(msg message, size int) {
	id := idKey(msg.ID)
	c.mu.Lock()
	ch, method := c.pending[id], c.methods[id]
	c.forgetLocked(id)
	_, alone := c.pending[c.probeID]
	alone = alone && len(c.pending) == 1
	probe := c.probeID != "" && (id == c.probeID || string(msg.ID) == "null" && alone)
	c.mu.Unlock()
	if msg.Error != nil {
		b, _ := json.Marshal(msg.Error)
		o := Observation{Channel: ChanError, Method: method, Data: b, Size: size}
		if probe {
			o.Source, o.Method = SourceProbe, "server/discover"
		}
		c.observe(o)
	}
	if ch != nil {
		ch <- response{result: msg.Result, err: msg.Error}
	}
}

// notificationSource is SourceListen for a notification tagged with the
// id of an open subscriptions/listen request.
func (c *Client) notificationSource(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	sid, ok := p.Meta[MetaSubscriptionID]
	if !ok {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listens[idKey(sid)] {
		return SourceListen
	}
	return ""
}
