package sink

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
)

// wireReader reads the fields of one protocol message, remembering the
// first time a field ran past the end instead of failing at each.
type wireReader struct {
	b   []byte
	bad bool
}

func (r *wireReader) cstring() string {
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		r.bad = true
		s := string(r.b)
		r.b = nil
		return s
	}
	s := string(r.b[:i])
	r.b = r.b[i+1:]
	return s
}

func (r *wireReader) n(k int) []byte {
	if k < 0 || len(r.b) < k {
		r.bad = true
		r.b = nil
		return nil
	}
	out := r.b[:k]
	r.b = r.b[k:]
	return out
}

func (r *wireReader) u16() int {
	b := r.n(2)
	if b == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(b))
}

func (r *wireReader) i32() int {
	b := r.n(4)
	if b == nil {
		return 0
	}
	return int(int32(binary.BigEndian.Uint32(b)))
}

// pgWriter builds backend messages.
type pgWriter struct{ bytes.Buffer }

// msg appends one message: its type, its length, the body f writes.
func (w *pgWriter) msg(typ byte, f func(b *pgWriter)) {
	w.WriteByte(typ)
	at := w.Len()
	w.Write([]byte{0, 0, 0, 0})
	if f != nil {
		f(w)
	}
	binary.BigEndian.PutUint32(w.Bytes()[at:], uint32(w.Len()-at))
}

func (w *pgWriter) i16(v int) { w.Write(binary.BigEndian.AppendUint16(nil, uint16(v))) }
func (w *pgWriter) i32(v int) { w.Write(binary.BigEndian.AppendUint32(nil, uint32(int32(v)))) }
func (w *pgWriter) cstr(s string) {
	w.WriteString(strings.ReplaceAll(s, "\x00", ""))
	w.WriteByte(0)
}

// PostgreSQL type OIDs and sizes for the fakes' types.
func pgType(t sqlType) (oid, size int) {
	switch t {
	case sqlInt:
		return 23, 4 // int4: node's pg parses it as a number, int8 as a string
	case sqlFloat:
		return 701, 8
	case sqlTime:
		return 1184, 8
	case sqlBool:
		return 16, 1
	}
	return 25, -1
}

// pgText is a value in PostgreSQL's text format.
func pgText(t sqlType, x sqlVal) []byte {
	switch t {
	case sqlTime:
		return []byte(x.s + "+00")
	case sqlBool:
		if x.s == "true" || x.s == "t" || x.s == "1" {
			return []byte("t")
		}
		return []byte("f")
	}
	return []byte(x.s)
}

// pgBinary is a value in PostgreSQL's binary format, falling back to
// text for a value that does not parse as its type.
func pgBinary(t sqlType, x sqlVal) []byte {
	switch t {
	case sqlInt:
		if n, err := strconv.ParseInt(x.s, 10, 32); err == nil {
			return binary.BigEndian.AppendUint32(nil, uint32(n))
		}
	case sqlFloat:
		if f, err := strconv.ParseFloat(x.s, 64); err == nil {
			return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
		}
	case sqlTime:
		if tm, err := time.Parse(time.DateTime, x.s); err == nil {
			epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
			return binary.BigEndian.AppendUint64(nil, uint64(tm.Sub(epoch).Microseconds()))
		}
	case sqlBool:
		return []byte{map[bool]byte{true: 1}[pgText(t, x)[0] == 't']}
	}
	return []byte(x.s)
}

// rowDescription describes cols with the given result formats (none: all
// text; one: for all columns; else one per column).
func (w *pgWriter) rowDescription(cols []sqlCol, formats []int) {
	w.msg('T', func(b *pgWriter) {
		b.i16(len(cols))
		for i, c := range cols {
			oid, size := pgType(c.typ)
			b.cstr(c.name)
			b.i32(0)
			b.i16(0)
			b.i32(oid)
			b.i16(size)
			b.i32(-1)
			b.i16(pgFormat(formats, i))
		}
	})
}

func pgFormat(formats []int, i int) int {
	switch {
	case len(formats) == 0:
		return 0
	case len(formats) == 1:
		return formats[0]
	case i < len(formats):
		return formats[i]
	}
	return 0
}

func (w *pgWriter) dataRows(r sqlResult, formats []int) {
	for _, row := range r.rows {
		w.msg('D', func(b *pgWriter) {
			b.i16(len(row))
			for i, x := range row {
				if x.null || i >= len(r.cols) {
					b.i32(-1)
					continue
				}
				val := pgText(r.cols[i].typ, x)
				if pgFormat(formats, i) == 1 {
					val = pgBinary(r.cols[i].typ, x)
				}
				b.i32(len(val))
				b.Write(val)
			}
		})
	}
}

// complete ends one statement's answer.
func (w *pgWriter) complete(r sqlResult) {
	if r.empty {
		w.msg('I', nil)
		return
	}
	w.msg('C', func(b *pgWriter) { b.cstr(r.tag) })
}

func (w *pgWriter) ready(tx byte) { w.msg('Z', func(b *pgWriter) { b.WriteByte(tx) }) }
