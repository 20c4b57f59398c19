package canary

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
)

// Minimum lengths of a fragment of a canary's random core, per form. A
// core is random alphanumerics (about 6 bits a character): 16 raw
// characters are 95 bits, 24 hex digits encode 12 characters (71 bits),
// 22 base64 and 26 base32 characters encode about 16. A chance match in
// random bytes is below 2^-60 per position even summed over every
// fragment of a run's canaries; TestFragmentsIgnoreRandomBytes and
// TestFragmentsIgnoreServerTraffic check it.
const (
	minFragRaw    = 16
	minFragHex    = 24
	minFragBase64 = 22
	minFragBase32 = 26
)

// gram is the length of the indexed substrings; stride is how far apart
// the scan samples data. Any occurrence of at least gram+stride-1 bytes
// (the smallest minimum, minFragRaw) contains a sampled gram.
const (
	gram   = 8
	stride = minFragRaw - gram + 1
)

// maxRefs bounds the forms one gram may point to (a gram shared by many
// forms is not distinctive).
const maxRefs = 64

// fragForm is one form of a canary: a whole encoded value (min is its
// length) or an encoded core whose fragments count (min is shorter).
type fragForm struct {
	canary, encoding string
	b                []byte
	min              int
	class            int
}

type fragRef struct {
	form int32
	off  int32
}

// fragIndex finds whole values and fragments of canary cores in one pass:
// every gram of every form is indexed, data is sampled every stride bytes,
// and a sampled hit is extended both ways to the full length of the
// match. It costs a map lookup every stride bytes however many canaries
// there are.
type fragIndex struct {
	forms []fragForm
	exact map[uint64][]fragRef // case-sensitive forms
	fold  map[uint64][]fragRef // lower-cased forms, matched in lower-cased data
}

func newFragIndex() *fragIndex {
	return &fragIndex{exact: map[uint64][]fragRef{}, fold: map[uint64][]fragRef{}}
}

// addCore indexes the forms of one value's core.
func (x *fragIndex) addCore(name, c string) {
	if len(c) < minFragRaw {
		return
	}
	x.add(name, "fragment", []byte(c), minFragRaw, false, classPartial)
	x.add(name, "reversed-fragment", reverse([]byte(c)), minFragRaw, false, classPartial)
	x.add(name, "hex-fragment", []byte(hex.EncodeToString([]byte(c))), minFragHex, true, classPartial)
	for _, n := range aligned(base64.RawStdEncoding.EncodeToString, c, 6) {
		x.add(name, "base64-fragment", []byte(n), minFragBase64, false, classPartial)
	}
	for _, n := range aligned(base64.RawURLEncoding.EncodeToString, c, 6) {
		x.add(name, "base64-fragment", []byte(n), minFragBase64, false, classPartial)
	}
	for _, n := range aligned(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString, c, 5) {
		x.add(name, "base32-fragment", []byte(n), minFragBase32, true, classPartial)
	}
}

// add indexes one form (lower-cased when fold). Its fragments of min
// bytes or more count; min is at least minFragRaw, so the scan's stride
// cannot step over one.
func (x *fragIndex) add(name, enc string, b []byte, min int, fold bool, class int) {
	if len(b) < min || min < minFragRaw {
		return
	}
	m := x.exact
	if fold {
		b, m = bytes.ToLower(b), x.fold
	}
	id := int32(len(x.forms))
	x.forms = append(x.forms, fragForm{canary: name, encoding: enc, b: b, min: min, class: class})
	for off := 0; off+gram <= len(b); off++ {
		k := binary.LittleEndian.Uint64(b[off:])
		if len(m[k]) < maxRefs {
			m[k] = append(m[k], fragRef{form: id, off: int32(off)})
		}
	}
}

// scan reports every form with a match of at least its minimum length
// in data (lower is data lower-cased, for the folded forms).
func (x *fragIndex) scan(data, lower []byte, found func(canary, encoding string, class int)) {
	if x == nil || len(x.forms) == 0 {
		return
	}
	for i := 0; i+gram <= len(data); i += stride {
		x.probe(x.exact, data, i, found)
		x.probe(x.fold, lower, i, found)
	}
}

func (x *fragIndex) probe(m map[uint64][]fragRef, data []byte, i int, found func(canary, encoding string, class int)) {
	if len(m) == 0 {
		return
	}
	for _, r := range m[binary.LittleEndian.Uint64(data[i:])] {
		f := &x.forms[r.form]
		off := int(r.off)
		left := 0
		for left < off && left < i && f.b[off-left-1] == data[i-left-1] {
			left++
		}
		right := gram
		for off+right < len(f.b) && i+right < len(data) && f.b[off+right] == data[i+right] {
			right++
		}
		if left+right >= f.min {
			found(f.canary, f.encoding, f.class)
		}
	}
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[len(b)-1-i] = c
	}
	return out
}
