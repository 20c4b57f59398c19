package mcpclient

import "encoding/json"

// Result types of 2026-07-28 (and the tasks extension). A result without
// one is "complete", as the revision requires of clients.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
	ResultTask          = "task"
)

// CacheHint is a result's cache hint (2026-07-28, on list, read and
// discover results).
type CacheHint struct {
	// Present is whether the result carried either field.
	Present bool
	// TTLMs is ttlMs (-1 when absent or not a non-negative integer).
	TTLMs int64
	// Scope is cacheScope as sent ("public", "private", or anything else a
	// server wrote, bounded).
	Scope string
}

// ResultMeta is what the revision puts around a result: its type, the
// server's identity in _meta, and the cache hint.
type ResultMeta struct {
	// Type is resultType ("complete" when absent), bounded.
	Type       string
	ServerInfo *Implementation
	Cache      CacheHint
	// Subscription is _meta's subscriptionId, raw, if any.
	Subscription json.RawMessage
}

// ParseMeta reads a result's type, _meta serverInfo and cache hint. A
// result that is not an object yields the zero values, type complete.
func ParseMeta(raw json.RawMessage) ResultMeta {
	m := ResultMeta{Type: ResultComplete, Cache: ParseCacheHint(raw)}
	f := fields(raw)
	var rt string
	if json.Unmarshal(f["resultType"], &rt) == nil {
		m.Type = truncate(rt, 40)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(f["_meta"], &meta)
	if si, ok := meta[MetaServerInfo]; ok {
		var impl Implementation
		if json.Unmarshal(si, &impl) == nil {
			m.ServerInfo = &impl
		}
	}
	if sid, ok := meta[MetaSubscriptionID]; ok && len(sid) <= 256 {
		m.Subscription = sid
	}
	return m
}

// fields are an object's members by their exact names (encoding/json
// matches struct fields case-insensitively; a server must not get its
// "RESULTTYPE" read where a real client reads none). Not an object: none.
func fields(raw json.RawMessage) map[string]json.RawMessage {
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return f
}

// ParseCacheHint reads ttlMs and cacheScope from a result; a field of
// the wrong type still counts as present (a server sent it).
func ParseCacheHint(raw json.RawMessage) CacheHint {
	var r map[string]json.RawMessage
	h := CacheHint{TTLMs: -1}
	if json.Unmarshal(raw, &r) != nil {
		return h
	}
	if v, ok := r["ttlMs"]; ok {
		h.Present = true
		var n json.Number
		if len(v) > 0 && v[0] != '"' && json.Unmarshal(v, &n) == nil {
			if i, err := n.Int64(); err == nil && i >= 0 {
				h.TTLMs = i
			}
		}
	}
	if v, ok := r["cacheScope"]; ok {
		h.Present = true
		var s string
		if json.Unmarshal(v, &s) == nil {
			h.Scope = truncate(s, 40)
		}
	}
	return h
}
