package mcpclient

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Multi round-trip requests (2026-07-28): instead of asking the client on
// the stream, a server answers tools/call, prompts/get or resources/read
// with an input_required result whose inputRequests the client answers by
// retrying the request with inputResponses and the requestState echoed
// byte for byte.

// Bounds of one input_required result.
const (
	maxInputRequests = 32
	maxInputKey      = 256
	maxRequestState  = 64 << 10
)

// InputRequired is a parsed input_required result.
type InputRequired struct {
	Requests []EmbeddedRequest // sorted by key
	// State is the requestState, when the result has one.
	State    *string
	TooMany  bool // more than maxInputRequests requests: the rest are dropped
	BigState bool // a requestState over maxRequestState: not echoed
}

// EmbeddedRequest is one entry of inputRequests.
type EmbeddedRequest struct {
	Key    string
	Method string
	Params json.RawMessage
}

// ParseInputRequired reads an input_required result.
func ParseInputRequired(raw json.RawMessage) (*InputRequired, error) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("decoding input_required result: %w", err)
	}
	var reqs map[string]json.RawMessage
	if v, ok := f["inputRequests"]; ok && json.Unmarshal(v, &reqs) != nil {
		return nil, fmt.Errorf("decoding input_required inputRequests: not an object")
	}
	ir := &InputRequired{}
	if v, ok := f["requestState"]; ok {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, fmt.Errorf("decoding input_required requestState: not a string")
		}
		ir.State, ir.BigState = &s, len(s) > maxRequestState
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > maxInputRequests {
		keys, ir.TooMany = keys[:maxInputRequests], true
	}
	for _, k := range keys {
		e := fields(reqs[k])
		var method string
		if json.Unmarshal(e["method"], &method) != nil || len(k) > maxInputKey {
			ir.Requests = append(ir.Requests, EmbeddedRequest{Key: truncate(k, maxInputKey)})
			continue
		}
		ir.Requests = append(ir.Requests, EmbeddedRequest{Key: k, Method: truncate(method, 100), Params: e["params"]})
	}
	return ir, nil
}

// InputRequest is one input request and the client's answer to it.
type InputRequest struct {
	Key    string
	Method string
	// Mode is an elicitation's mode ("form", "url"; empty for others).
	Mode string
	// URL is a URL-mode elicitation's address (never opened).
	URL string
	// Answer is AnswerRoots, AnswerDeclined, AnswerSampled or "unsupported".
	Answer string
}

// Round is one input_required round of a driven request.
type Round struct {
	Requests []InputRequest
	// StateSize is the size of the requestState echoed (0: none).
	StateSize int
}

// answerInputs observes each input request, answers it safely, records
// it, and returns the inputResponses map (source says whether it came from
// a result or a task).
func (c *Client) answerInputs(origin string, ir *InputRequired, source string) (map[string]any, []InputRequest) {
	responses := map[string]any{}
	var out []InputRequest
	for _, e := range ir.Requests {
		c.observe(Observation{Channel: ChanRequest, Method: e.Method, Data: e.Params, Size: len(e.Params), Source: source})
		resp, answer, ok := c.inputAnswer(e.Method)
		in := InputRequest{Key: e.Key, Method: e.Method, Answer: answer}
		if e.Method == "elicitation/create" {
			var p struct {
				Mode string `json:"mode"`
			}
			_ = json.Unmarshal(e.Params, &p)
			in.Mode, in.URL = truncate(p.Mode, 20), elicitURL(e.Params)
		}
		if ok {
			responses[e.Key] = resp
		}
		c.recordRequest(ServerRequest{Method: e.Method, Time: time.Now(), Answer: answer, Source: source, URL: in.URL})
		out = append(out, in)
	}
	if ir.State != nil {
		c.observe(Observation{Channel: ChanState, Method: origin, Data: []byte(truncate(*ir.State, maxRequestState)), Size: len(*ir.State), Source: source})
	}
	return responses, out
}
