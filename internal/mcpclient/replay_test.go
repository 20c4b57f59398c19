package mcpclient

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
)

// Replaying a transcript: the real server's messages, answered to the
// live client's requests. Each live message is matched to the next unused
// recorded one of the same method and name; the server messages recorded
// after it are sent back with the recorded request ids (the response's,
// a subscription's) rewritten to the live ones.

// group is one recorded client message and what the server sent after it.
type group struct {
	key  string
	id   string // the recorded request's id key ("" for a notification)
	sent json.RawMessage
	out  []json.RawMessage
	h    *httpRecord // an HTTP exchange's record
	used bool
}

// msgKey is a message's method and what it names.
func msgKey(b []byte) (key, id string) {
	var m struct {
		ID     json.RawMessage            `json:"id"`
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(b, &m)
	key = m.Method
	for _, f := range []string{"name", "uri", "taskId"} {
		var s string
		if json.Unmarshal(m.Params[f], &s) == nil && s != "" {
			key += " " + s
		}
	}
	if len(m.ID) > 0 {
		id = idKey(m.ID)
	}
	return key, id
}

// replay matches live messages to a transcript's groups.
type replay struct {
	mu     sync.Mutex
	groups []*group
	ids    map[string]json.RawMessage // recorded id -> live id
	sent   [][]byte                   // the live client's messages, in order
}

func newReplay(recs []record) *replay {
	r := &replay{ids: map[string]json.RawMessage{}}
	var cur *group
	for _, rec := range recs {
		switch {
		case rec.C != nil:
			k, id := msgKey(rec.C)
			cur = &group{key: k, id: id, sent: rec.C}
			r.groups = append(r.groups, cur)
		case rec.S != nil && cur != nil:
			cur.out = append(cur.out, rec.S)
		case rec.H != nil:
			k, id := msgKey(rec.H.Body)
			r.groups = append(r.groups, &group{key: k, id: id, sent: rec.H.Body, h: rec.H})
		}
	}
	return r
}

// match finds the group of a live message and notes its live id.
func (r *replay) match(b []byte) *group {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, append([]byte(nil), b...))
	k, _ := msgKey(b)
	var live struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(b, &live)
	for i, g := range r.groups {
		if !g.used && g.key == k {
			g.used = true
			if g.id != "" && len(live.ID) > 0 {
				r.ids[g.id] = live.ID
			}
			return r.groups[i]
		}
	}
	return nil
}

// rewrite puts live ids into a recorded server message: the response's
// id and a subscription id in params._meta or result._meta.
func (r *replay) rewrite(b json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	live := func(v any) any {
		if id, ok := r.ids[idKey(mustJSON(v))]; ok {
			var out any
			_ = json.Unmarshal(id, &out)
			return out
		}
		return v
	}
	if id, ok := m["id"]; ok && m["method"] == nil {
		m["id"] = live(id)
	}
	for _, part := range []string{"params", "result"} {
		if p, ok := m[part].(map[string]any); ok {
			if meta, ok := p["_meta"].(map[string]any); ok {
				if sid, ok := meta[MetaSubscriptionID]; ok {
					meta[MetaSubscriptionID] = live(sid)
				}
			}
		}
	}
	return mustJSON(m)
}

// sentMethods are the methods (and names) the live client sent.
func (r *replay) sentMethods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.sent {
		k, _ := msgKey(b)
		out = append(out, k)
	}
	return out
}

// notInTranscript answers a live request the transcript has no match for.
func notInTranscript(line []byte, key string) []byte {
	var live struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &live)
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": live.ID, "error": map[string]any{"code": -32601, "message": "not in the transcript: " + key}})
}

// sentRaw are the live client's messages as sent.
func (r *replay) sentRaw() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.sent))
	for i, b := range r.sent {
		out[i] = strings.TrimSpace(string(b))
	}
	return out
}

// replayStdio runs a client against a transcript over pipes.
func replayStdio(t *testing.T, name string, co Options) (*Client, *replay) {
	t.Helper()
	r := newReplay(readTranscript(t, name))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	var wmu sync.Mutex
	emit := func(b []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = sw.Write(append(r.rewrite(b), '\n'))
	}
	go func() {
		sc := bufio.NewScanner(sr)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			g := r.match(line)
			k, id := msgKey(line)
			switch {
			case g != nil:
				for _, out := range g.out {
					emit(out)
				}
			case id != "":
				emit(notInTranscript(line, k))
			}
		}
		sw.Close()
	}()
	c := New(cr, cw, co)
	t.Cleanup(func() { c.Close(); cw.Close(); sw.Close() })
	return c, r
}
