package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// head is what the transport reads of a message it sends: enough to
// route it, name it in headers and match its answer.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	// version is the envelope's protocol version: set, the message is a
	// 2026-07-28 request.
	version string
}

func (h head) isRequest() bool { return h.Method != "" && len(h.ID) > 0 }

func parseHead(body []byte) head {
	var h head
	_ = json.Unmarshal(body, &h)
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(h.Params, &p) == nil {
		_ = json.Unmarshal(p.Meta[MetaProtocolVersion], &h.version)
	}
	return h
}

// nameSource is the params field Mcp-Name mirrors, by method (the
// revision's table, and the tasks extension's taskId).
var nameSource = map[string]string{
	"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
	"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId",
}

// isOpening reports whether the message opens a session: what
// RetryInitialize retries.
func (h head) isOpening() bool { return h.Method == "initialize" || h.Method == "server/discover" }

func (t *HTTPTransport) post(ctx context.Context, body []byte, h head) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.opts.URL, bytes.NewReader(bytes.TrimSpace(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.version != "" {
		t.modernHeaders(req.Header, h)
		return t.opts.Client.Do(req)
	}
	t.mu.Lock()
	if t.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", t.sessionID)
	}
	if h.Method != "initialize" && t.initDone {
		req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	}
	t.mu.Unlock()
	return t.opts.Client.Do(req)
}

// modernHeaders are the 2026-07-28 request headers: the protocol version
// (as in the body's envelope), Mcp-Method, Mcp-Name where the method
// names something, and the Mcp-Param headers a tool declared. There is
// no session.
func (t *HTTPTransport) modernHeaders(hd http.Header, h head) {
	hd.Set("MCP-Protocol-Version", headerValue(truncate(h.version, 64)))
	if h.Method != "" {
		hd.Set("Mcp-Method", headerValue(truncate(h.Method, 256)))
	}
	if field, ok := nameSource[h.Method]; ok {
		var p map[string]json.RawMessage
		var name string
		if json.Unmarshal(h.Params, &p) == nil && json.Unmarshal(p[field], &name) == nil {
			hd.Set("Mcp-Name", headerValue(name))
		}
	}
	if h.Method == "tools/call" && t.book != nil {
		for _, kv := range t.book.mirror(h.Params) {
			hd.Set(kv[0], kv[1])
		}
	}
}
