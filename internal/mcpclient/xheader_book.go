package mcpclient

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// headerBook holds the declarations the client learned from tools/list
// and what it mirrored; the HTTP transport consults it for each call.
type headerBook struct {
	mu       sync.Mutex
	decl     map[string][]HeaderParam
	rejected map[string]string
	mirrored []MirroredArg
}

func newHeaderBook() *headerBook {
	return &headerBook{decl: map[string][]HeaderParam{}, rejected: map[string]string{}}
}

// learn records the declarations of the tools of one tools/list page.
func (b *headerBook) learn(tools []json.RawMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range tools {
		name, params, err := ToolHeaders(t)
		if name == "" || len(b.decl)+len(b.rejected) > maxPageItems {
			continue
		}
		delete(b.decl, name)
		delete(b.rejected, name)
		if err != nil {
			b.rejected[name] = err.Error()
		} else if len(params) > 0 {
			b.decl[name] = params
		}
	}
}

// mirror returns the Mcp-Param headers of a tools/call's params, in
// declaration order, and records what it mirrored.
func (b *headerBook) mirror(params json.RawMessage) [][2]string {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if dec.Decode(&p) != nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][2]string
	for _, d := range b.decl[p.Name] {
		v, ok := argValue(p.Arguments, d)
		if !ok {
			continue
		}
		h := "Mcp-Param-" + d.Header
		out = append(out, [2]string{h, v})
		if len(b.mirrored) < maxMirrored {
			b.mirrored = append(b.mirrored, MirroredArg{Tool: truncate(p.Name, 200), Path: strings.Join(d.Path, "."), Header: h, Value: truncate(v, maxMirrorValue)})
		}
	}
	return out
}

// Mirrored returns the arguments the client sent in Mcp-Param headers.
func (c *Client) Mirrored() []MirroredArg {
	c.book.mu.Lock()
	defer c.book.mu.Unlock()
	return append([]MirroredArg(nil), c.book.mirrored...)
}

// HeaderDeclarations returns the x-mcp-header declarations learned from
// tools/list, by tool.
func (c *Client) HeaderDeclarations() map[string][]HeaderParam {
	c.book.mu.Lock()
	defer c.book.mu.Unlock()
	out := make(map[string][]HeaderParam, len(c.book.decl))
	for k, v := range c.book.decl {
		out[k] = v
	}
	return out
}

// RejectedTools returns the tools whose x-mcp-header declarations break
// the revision's rules (a conforming HTTP client hides them), sorted.
func (c *Client) RejectedTools() []RejectedTool {
	c.book.mu.Lock()
	defer c.book.mu.Unlock()
	var out []RejectedTool
	for _, k := range sortedKeysStr(c.book.rejected) {
		out = append(out, RejectedTool{Tool: k, Reason: c.book.rejected[k]})
	}
	return out
}

func sortedKeysStr(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
