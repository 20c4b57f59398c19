package mcpclient

import (
	"encoding/json"
	"time"
)

// The client's answers to what a server asks of it. They are the same for
// a 2025-era request on the stream and a 2026-07-28 input request: roots
// are the decoy workspace; elicitation, in form and URL mode, is declined
// (a URL is never opened); sampling is refused on the stream (the 2025
// error real clients send when the user rejects it) and, in an input
// request, where there is no refusal shape, answered with a fixed harmless
// assistant message (SampledText) so the server carries on and shows what it
// does next.
const (
	AnswerRoots    = "roots"
	AnswerDeclined = "declined"
	AnswerSampled  = "sampled"
)

// SampledText is the whole of every sampling answer in an input response.
const SampledText = "I can't help with that."

func (c *Client) rootsResult() map[string]any {
	roots := []map[string]string{}
	for _, r := range c.opts.Roots {
		roots = append(roots, map[string]string{"uri": r, "name": "workspace"})
	}
	return map[string]any{"roots": roots}
}

// answer replies to a request from the server.
func (c *Client) answer(msg message) {
	var result any
	var rpcErr *RPCError
	req := ServerRequest{Method: truncate(msg.Method, 100), Time: time.Now()}
	switch msg.Method {
	case "roots/list":
		result, req.Answer = c.rootsResult(), AnswerRoots
	case "sampling/createMessage":
		rpcErr, req.Answer = &RPCError{Code: -1, Message: "User rejected sampling request"}, AnswerDeclined
	case "elicitation/create":
		result, req.Answer = map[string]any{"action": "decline"}, AnswerDeclined
		req.URL = elicitURL(msg.Params)
	case "ping":
		result, req.Answer = map[string]any{}, "pong"
	default:
		rpcErr, req.Answer = &RPCError{Code: -32601, Message: "Method not found"}, "unsupported"
	}
	c.recordRequest(req)
	out := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
	if rpcErr != nil {
		out["error"] = rpcErr
	} else {
		out["result"] = result
	}
	_ = c.write(out)
}

// inputAnswer is the response to one input request, and what it was; ok
// is false for a method the client does not serve (the key is then left
// out of inputResponses, as a client without that capability would).
func (c *Client) inputAnswer(method string) (resp any, answer string, ok bool) {
	switch method {
	case "roots/list":
		return c.rootsResult(), AnswerRoots, true
	case "elicitation/create":
		return map[string]any{"action": "decline"}, AnswerDeclined, true
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": SampledText},
			"model": c.clientInfo()["name"], "stopReason": "endTurn"}, AnswerSampled, true
	}
	return nil, "unsupported", false
}

// maxURL bounds a recorded elicitation URL.
const maxURL = 2048

// elicitURL is the url of a URL-mode elicitation's params, bounded.
func elicitURL(params json.RawMessage) string {
	var p struct {
		Mode string `json:"mode"`
		URL  string `json:"url"`
	}
	if json.Unmarshal(params, &p) != nil || p.URL == "" {
		return ""
	}
	return truncate(p.URL, maxURL)
}
