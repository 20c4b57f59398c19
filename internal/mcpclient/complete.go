package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
)

// CompletionRef names what completion/complete completes: a prompt's
// argument or a resource template's variable.
type CompletionRef struct {
	Type string `json:"type"` // "ref/prompt" or "ref/resource"
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef is the reference to a prompt.
func PromptRef(name string) CompletionRef { return CompletionRef{Type: "ref/prompt", Name: name} }

// TemplateRef is the reference to a resource template.
func TemplateRef(uriTemplate string) CompletionRef {
	return CompletionRef{Type: "ref/resource", URI: uriTemplate}
}

// Completion is a completion/complete answer, bounded.
type Completion struct {
	Values  []string
	Total   int
	HasMore bool
	// Result is the raw result (the values are text a client shows).
	Result json.RawMessage
}

// Bounds of a completion (the revision allows at most 100 values).
const (
	maxCompletionValues = 100
	maxCompletionValue  = 1000
)

// Complete asks for completions of argument arg, typed so far as value,
// with context the values of the other arguments (may be nil).
func (c *Client) Complete(ctx context.Context, ref CompletionRef, arg, value string, context map[string]string) (*Completion, error) {
	params := map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}
	if len(context) > 0 {
		params["context"] = map[string]any{"arguments": context}
	}
	raw, err := c.Call(ctx, "completion/complete", params)
	if err != nil {
		return nil, err
	}
	return ParseCompletion(raw)
}

// ParseCompletion reads a completion/complete result.
func ParseCompletion(raw json.RawMessage) (*Completion, error) {
	var r struct {
		Completion struct {
			Values  []json.RawMessage `json:"values"`
			Total   *json.Number      `json:"total"`
			HasMore bool              `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decoding completion/complete result: %w", err)
	}
	out := &Completion{HasMore: r.Completion.HasMore, Result: raw}
	for _, v := range r.Completion.Values[:min(len(r.Completion.Values), maxCompletionValues)] {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out.Values = append(out.Values, truncate(s, maxCompletionValue))
		}
	}
	if r.Completion.Total != nil {
		if n, err := r.Completion.Total.Int64(); err == nil && n >= 0 && n < 1<<31 {
			out.Total = int(n)
		}
	}
	return out, nil
}
