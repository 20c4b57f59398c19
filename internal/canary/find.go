package canary

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Hit is one canary found in data.
type Hit struct {
	Canary string // canary name, e.g. "env:GITHUB_TOKEN"
	// Encoding is how the value was found: raw, hex, base64, base64url,
	// base32, url, json or reversed (the whole value); split (the whole
	// value broken by dashes, dots or other separators, or hex-split);
	// prefix or prefix-hex (a provider prefix and the start of the value
	// after it); fragment, reversed-fragment, hex-fragment,
	// base64-fragment or base32-fragment (a long-enough piece of the
	// value's random part). Inside a compressed payload the coding comes
	// first: "gzip+raw".
	Encoding string
}

// Strength classes of a hit: only the strongest class found for a canary
// in one search is reported, so a whole value is not reported again as
// its own fragments.
const (
	classExact = iota
	classSplit
	classPartial
)

type needle struct {
	canary   string
	encoding string
	b        []byte
	fold     bool // compare case-insensitively (hex)
	class    int
}

// Finder searches data for any canary of a set in any common encoding,
// whole or in part.
type Finder struct {
	// whole holds the forms searched in data and in data without
	// whitespace: whole values and fragments of their random parts;
	// split those searched in data without separators. Forms too short
	// for the index are in short and shortSplit.
	whole, split *fragIndex
	short        []needle
	// window is how many bytes a Stream keeps between writes: enough for
	// the longest needle to straddle a write boundary.
	window int
}

// NewFinder precomputes the encoded forms of every canary value.
func NewFinder(cs []Canary) *Finder {
	f := &Finder{whole: newFragIndex(), split: newFragIndex()}
	for _, c := range cs {
		for _, v := range c.Values {
			if len(v) < 8 {
				continue // too short to be distinctive
			}
			f.addWhole(c.Name, v)
			f.addPartial(c.Name, v)
		}
	}
	for _, x := range []*fragIndex{f.whole, f.split} {
		for _, form := range x.forms {
			f.window = max(f.window, 2*len(form.b)+64)
		}
	}
	return f
}

// addWhole adds the forms of a whole value.
func (f *Finder) addWhole(name, v string) {
	f.add(name, "raw", []byte(v), false)
	f.add(name, "hex", []byte(hex.EncodeToString([]byte(v))), true)
	for _, n := range aligned(base64.RawStdEncoding.EncodeToString, v, 6) {
		f.add(name, "base64", []byte(n), false)
	}
	for _, n := range aligned(base64.RawURLEncoding.EncodeToString, v, 6) {
		f.add(name, "base64url", []byte(n), false)
	}
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString
	for _, n := range aligned(b32, v, 5) {
		f.add(name, "base32", []byte(n), true)
	}
	if q := url.QueryEscape(v); q != v {
		f.add(name, "url", []byte(q), false)
	}
	if p := url.PathEscape(v); p != v {
		f.add(name, "url", []byte(p), false)
	}
	if j, _ := json.Marshal(v); string(j[1:len(j)-1]) != v {
		f.add(name, "json", j[1:len(j)-1], false)
	}
	f.add(name, "reversed", reverse([]byte(v)), false)
	if s := strip([]byte(v)); len(s) >= minFragRaw {
		f.split.add(name, "split", s, len(s), false, classSplit)
		f.split.add(name, "hex-split", []byte(hex.EncodeToString([]byte(v))), 2*len(v), true, classSplit)
	}
}

// addPartial adds what proves part of a value: its provider prefix with
// the start of the rest, and fragments of its random part.
func (f *Finder) addPartial(name, v string) {
	if p, rest := splitPrefix(v); p != "" && len(rest) > minPrefixPart {
		head := p + rest[:minPrefixPart]
		f.addClass(name, "prefix", []byte(head), false, classPartial)
		f.addClass(name, "prefix-hex", []byte(hex.EncodeToString([]byte(head))), true, classPartial)
	}
	f.whole.addCore(name, core(v))
}

func (f *Finder) add(name, enc string, b []byte, fold bool) {
	f.addClass(name, enc, b, fold, classExact)
}

// addClass adds a whole form: to the index, or to short when it is
// shorter than the index's minimum.
func (f *Finder) addClass(name, enc string, b []byte, fold bool, class int) {
	switch {
	case len(b) < 8:
	case len(b) >= minFragRaw:
		f.whole.add(name, enc, b, len(b), fold, class)
	default:
		if fold {
			b = bytes.ToLower(b)
		}
		f.short = append(f.short, needle{canary: name, encoding: enc, b: b, fold: fold, class: class})
	}
}

// aligned returns the parts of encode(prefix+v) that depend only on v, for
// every byte alignment of v inside a longer encoded stream. bits is the
// number of bits per output character (6 for base64, 5 for base32).
func aligned(encode func([]byte) string, v string, bits int) []string {
	group := 3
	if bits == 5 {
		group = 5
	}
	var out []string
	for k := range group {
		enc := encode(append(make([]byte, k), v...))
		start := (8*k + bits - 1) / bits
		end := 8 * (k + len(v)) / bits
		if end > len(enc) {
			end = len(enc)
		}
		if end-start >= 8 {
			out = append(out, enc[start:end])
		}
	}
	return out
}

// Find returns the canaries found in data, one hit per canary and encoding,
// sorted. Data is searched as it is; without whitespace and escaped line
// breaks (a PEM key re-wrapped at another width, "\n" as two characters
// in JSON); without separators (a value broken by dashes or dots); and,
// when its first bytes announce gzip or zlib, decompressed (bounded by
// MaxInflated). For each canary only the strongest class of hit is
// reported: whole values, then separator-broken ones, then parts.
func (f *Finder) Find(data []byte) []Hit {
	if f == nil || len(data) == 0 {
		return nil
	}
	r := &result{}
	f.searchAll(data, "", r)
	if inner, coding := Inflate(data, ""); len(inner) > 0 {
		f.searchAll(inner, coding+"+", r)
	}
	return r.hits()
}

// FindHTTP searches an HTTP request: its request line and headers (head)
// and its body, and the body decoded per its Content-Encoding header (or
// its magic bytes when the header is missing).
func (f *Finder) FindHTTP(head, body []byte, contentEncoding string) []Hit {
	if f == nil {
		return nil
	}
	r := &result{}
	f.searchAll(append(bytes.Clone(head), body...), "", r)
	if inner, coding := Inflate(body, contentEncoding); len(inner) > 0 {
		f.searchAll(inner, coding+"+", r)
	}
	return r.hits()
}

// searchAll runs every pass over data; wrap names the coding data came
// out of ("gzip+"), or is empty.
func (f *Finder) searchAll(data []byte, wrap string, r *result) {
	f.pass(f.whole, f.short, data, wrap, r)
	if sq := squeeze(data); len(sq) != len(data) {
		f.pass(f.whole, f.short, sq, wrap, r)
	}
	if st := strip(data); len(st) != len(data) {
		f.pass(f.split, nil, st, wrap, r)
	}
}

// pass searches data for the forms of an index and for short needles.
func (f *Finder) pass(x *fragIndex, short []needle, data []byte, wrap string, r *result) {
	lower := asciiLower(data)
	x.scan(data, lower, func(c, enc string, class int) { r.add(c, wrap+enc, class) })
	for _, n := range short {
		hay := data
		if n.fold {
			hay = lower
		}
		if bytes.Contains(hay, n.b) {
			r.add(n.canary, wrap+n.encoding, n.class)
		}
	}
}

// asciiLower lower-cases ASCII letters only (the folded forms are hex and
// base32), much faster than bytes.ToLower on binary data.
func asciiLower(data []byte) []byte {
	out := make([]byte, len(data))
	for i, c := range data {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// result collects hits, keeping per canary only the strongest class.
type result struct {
	best map[string]int
	all  map[Hit]int
}

func (r *result) add(canary, encoding string, class int) {
	if r.best == nil {
		r.best, r.all = map[string]int{}, map[Hit]int{}
	}
	if b, ok := r.best[canary]; !ok || class < b {
		r.best[canary] = class
	}
	r.all[Hit{Canary: canary, Encoding: encoding}] = class
}

func (r *result) hits() []Hit {
	var out []Hit
	for h, class := range r.all {
		if class == r.best[h.Canary] {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, compareHits)
	return out
}

func compareHits(a, b Hit) int {
	if c := strings.Compare(a.Canary, b.Canary); c != 0 {
		return c
	}
	return strings.Compare(a.Encoding, b.Encoding)
}

// squeeze drops ASCII whitespace and escaped line breaks and tabs (a
// backslash run followed by n, r or t) from data. Canary values and their
// encodings contain neither.
func squeeze(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			continue
		case '\\':
			j := i
			for j < len(data) && data[j] == '\\' {
				j++
			}
			if j < len(data) && (data[j] == 'n' || data[j] == 'r' || data[j] == 't') {
				i = j
				continue
			}
			out = append(out, data[i:j]...)
			i = j - 1
		default:
			out = append(out, c)
		}
	}
	return out
}

// separators are what a value is broken up with besides whitespace.
var separators = [256]bool{'-': true, '_': true, '.': true, ',': true, ':': true, ';': true, '|': true}

// strip is squeeze that also drops separators. Canary values may contain
// separators themselves: the split needles are stripped the same way.
func strip(data []byte) []byte {
	sq := squeeze(data)
	out := sq[:0]
	for _, c := range sq {
		if !separators[c] {
			out = append(out, c)
		}
	}
	return out
}

// FindString is Find for text.
func (f *Finder) FindString(s string) []Hit { return f.Find([]byte(s)) }
