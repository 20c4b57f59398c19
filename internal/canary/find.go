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
	Canary   string // canary name, e.g. "env:GITHUB_TOKEN"
	Encoding string // raw, hex, base64, base64url, base32, url, json
}

type needle struct {
	canary   string
	encoding string
	b        []byte
	fold     bool // compare case-insensitively (hex)
}

// Finder searches data for any canary of a set in any common encoding.
type Finder struct {
	needles []needle
}

// NewFinder precomputes the encoded forms of every canary value.
func NewFinder(cs []Canary) *Finder {
	f := &Finder{}
	for _, c := range cs {
		for _, v := range c.Values {
			if len(v) < 8 {
				continue // too short to be distinctive
			}
			f.add(c.Name, "raw", []byte(v), false)
			f.add(c.Name, "hex", []byte(hex.EncodeToString([]byte(v))), true)
			for _, n := range aligned(base64.RawStdEncoding.EncodeToString, v, 6) {
				f.add(c.Name, "base64", []byte(n), false)
			}
			for _, n := range aligned(base64.RawURLEncoding.EncodeToString, v, 6) {
				f.add(c.Name, "base64url", []byte(n), false)
			}
			b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString
			for _, n := range aligned(b32, v, 5) {
				f.add(c.Name, "base32", []byte(n), true)
			}
			if q := url.QueryEscape(v); q != v {
				f.add(c.Name, "url", []byte(q), false)
			}
			if p := url.PathEscape(v); p != v {
				f.add(c.Name, "url", []byte(p), false)
			}
			if j, _ := json.Marshal(v); string(j[1:len(j)-1]) != v {
				f.add(c.Name, "json", j[1:len(j)-1], false)
			}
		}
	}
	return f
}

func (f *Finder) add(name, enc string, b []byte, fold bool) {
	if len(b) < 8 {
		return
	}
	if fold {
		b = bytes.ToLower(b)
	}
	f.needles = append(f.needles, needle{canary: name, encoding: enc, b: b, fold: fold})
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
// sorted. A value split by line breaks (a PEM key re-wrapped at another
// width) or by escaped ones ("\n" as two characters in JSON) is found too:
// data is also searched with whitespace and escaped line breaks removed.
func (f *Finder) Find(data []byte) []Hit {
	if f == nil || len(data) == 0 {
		return nil
	}
	var hits []Hit
	seen := map[Hit]bool{}
	f.search(data, seen, &hits)
	if sq := squeeze(data); len(sq) != len(data) {
		f.search(sq, seen, &hits)
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := strings.Compare(a.Canary, b.Canary); c != 0 {
			return c
		}
		return strings.Compare(a.Encoding, b.Encoding)
	})
	return hits
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

// search adds the hits of every needle in data.
func (f *Finder) search(data []byte, seen map[Hit]bool, hits *[]Hit) {
	var lower []byte
	for _, n := range f.needles {
		hay := data
		if n.fold {
			if lower == nil {
				lower = bytes.ToLower(data)
			}
			hay = lower
		}
		if bytes.Contains(hay, n.b) {
			h := Hit{Canary: n.canary, Encoding: n.encoding}
			if !seen[h] {
				seen[h] = true
				*hits = append(*hits, h)
			}
		}
	}
}

// FindString is Find for text.
func (f *Finder) FindString(s string) []Hit { return f.Find([]byte(s)) }
