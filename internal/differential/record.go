// Package differential judges by difference: it compares what a server
// emitted in runs that differ only in the planted secrets, and reports
// what follows them — whatever the encoding, split or channel. Three runs
// take part: the primary run, a calibration run that repeats its secrets
// exactly (what differs between those two varies by itself: time, random
// ids, nonces) and a variant run given other secrets of the same shapes
// (other canary values, other contents of the decoy files). A field of an
// emission that is the same in the primary and the calibration run and
// different in the variant is secret-derived (Agrigento, NDSS 2017:
// differential black-box analysis, nondeterminism modelled from runs that
// do not vary the private values).
//
// Records hold raw content (canary values included) in memory only; what
// reaches a manifest is redacted and bounded by the caller.
package differential

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"net/url"
	"slices"
	"strconv"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Record is one emission of a run: an outbound stream, a DNS question, an
// HTTP request, a service message, a call's result, a message the server
// sent besides its answers, or a file it wrote. Records pair up across
// runs by Channel and Dest (and Phase for a call's result) and by their
// content; Fields localize a difference.
type Record struct {
	Phase   string
	Channel string // dns, http, tcp, udp, service, result, message, file
	Dest    string // the registrable domain, address or path it went to
	Fields  []Field
	// Caller: the content is what the call asked for (a result of a call
	// whose arguments named workspace files): it depends on the decoys by
	// design.
	Caller bool
}

// Field is one part of a record.
type Field struct{ Name, Value string }

// Channels of records.
const (
	ChannelDNS     = "dns"
	ChannelHTTP    = "http"
	ChannelTCP     = "tcp"
	ChannelUDP     = "udp"
	ChannelService = "service"
	ChannelResult  = m.ChannelResult
	ChannelMessage = "message"
	ChannelFile    = "file"
)

// restField is the last field of a record that reached MaxFields: the
// digest of every field past the bound.
const restField = "(the rest)"

// Bounds of what a record holds: fields per record and bytes per field,
// so a flood costs bounded memory and time.
const (
	MaxFields     = 512
	MaxFieldBytes = 4 << 10
	MaxRecords    = 4096
)

func (r *Record) add(name, value string) {
	if len(r.Fields) >= MaxFields-1 {
		// Past the bound, the rest folds into one digest: a secret after
		// five hundred constant fields still changes the record.
		h := sha256.New()
		if len(r.Fields) == MaxFields {
			h.Write([]byte(r.Fields[MaxFields-1].Value))
		} else {
			r.Fields = append(r.Fields, Field{Name: restField})
		}
		h.Write([]byte(name + "\x00" + value + "\x00"))
		r.Fields[MaxFields-1].Value = "sha256:" + hex.EncodeToString(h.Sum(nil))
		return
	}
	if len(value) > MaxFieldBytes {
		// Past the bound, the whole value compares by its digest.
		sum := sha256.Sum256([]byte(value))
		value = value[:MaxFieldBytes-72] + " sha256:" + hex.EncodeToString(sum[:])
	}
	r.Fields = append(r.Fields, Field{name, value})
}

// AddText splits text into its fields: JSON by path, a form or query by
// key, anything else into tokens by position (a separator-delimited run
// of letters, digits and the characters of base64 and hex encodings).
func (r *Record) AddText(prefix, text string) {
	t := strings.TrimSpace(text)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		var v any
		_ = json.Unmarshal([]byte(t), &v)
		r.addJSON(prefix, v, 0)
		return
	}
	if q, err := url.ParseQuery(t); err == nil && strings.Contains(t, "=") && !strings.ContainsAny(t, " \n") {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			r.add(prefix+"."+k, strings.Join(q[k], ","))
		}
		return
	}
	for i, tok := range tokensKeepingTimes(t) {
		r.add(prefix+"#"+strconv.Itoa(i), tok)
	}
}

func (r *Record) addJSON(prefix string, v any, depth int) {
	if depth > 16 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			r.addJSON(prefix+"."+k, x[k], depth+1)
		}
	case []any:
		for i, e := range x {
			r.addJSON(prefix+"["+strconv.Itoa(i)+"]", e, depth+1)
		}
	case string:
		// A string field can carry text of its own (a Markdown image URL
		// in a result): its tokens localize what changed in it.
		toks := tokensKeepingTimes(x)
		if len(toks) <= 1 {
			r.add(prefix, x)
			return
		}
		for i, tok := range toks {
			r.add(prefix+"#"+strconv.Itoa(i), tok)
		}
	default:
		b, _ := json.Marshal(x)
		r.add(prefix, string(b))
	}
}

// Tokens splits text at everything that is not a letter, digit or one of
// the characters base64, base64url and hex encodings use.
func Tokens(s string) []string {
	return strings.FieldsFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c > 127)
	})
}

// AddURL splits a URL: host, path segments, query keys.
func (r *Record) AddURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		r.AddText("url", raw)
		return
	}
	if u.Host != "" {
		r.add("host", strings.ToLower(u.Hostname()))
	}
	for i, seg := range strings.Split(strings.Trim(u.EscapedPath(), "/"), "/") {
		if seg != "" {
			r.add("path/"+strconv.Itoa(i), seg)
		}
	}
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.add("query."+k, strings.Join(q[k], ","))
	}
}

// AddField adds one field as it is.
func (r *Record) AddField(name, value string) { r.add(name, value) }
