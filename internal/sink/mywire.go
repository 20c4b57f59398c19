package sink

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"time"
)

// myReader reads MySQL's little-endian, length-encoded fields, noting
// when one runs past the end.
type myReader struct {
	b   []byte
	bad bool
}

func (r *myReader) n(k int) []byte {
	if k < 0 || len(r.b) < k {
		r.bad, r.b = true, nil
		return nil
	}
	out := r.b[:k]
	r.b = r.b[k:]
	return out
}

func (r *myReader) byte1() byte {
	if b := r.n(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *myReader) cstring() string {
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		s := string(r.b)
		r.b = nil
		return s
	}
	s := string(r.b[:i])
	r.b = r.b[i+1:]
	return s
}

func (r *myReader) uint(k int) uint64 {
	b := r.n(k)
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func (r *myReader) lenenc() uint64 {
	switch c := r.byte1(); c {
	case 0xfc:
		return r.uint(2)
	case 0xfd:
		return r.uint(3)
	case 0xfe:
		return r.uint(8)
	default:
		return uint64(c)
	}
}

func (r *myReader) lenencBytes() []byte {
	n := r.lenenc()
	if n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return nil
	}
	return r.n(int(n))
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

func appendLenencStr(b []byte, s string) []byte { return append(appendLenenc(b, uint64(len(s))), s...) }

func myOK(affected, insertID uint64) []byte {
	b := appendLenenc(appendLenenc([]byte{0}, affected), insertID)
	return append(b, myStatusAutocommit, 0, 0, 0)
}

func myEOF() []byte { return []byte{0xfe, 0, 0, myStatusAutocommit, 0} }

func myErr(code uint16, state, msg string) []byte {
	b := binary.LittleEndian.AppendUint16([]byte{0xff}, code)
	return append(append(append(b, '#'), state...), msg...)
}

// MySQL column types for the fakes' types.
func myType(t sqlType) (typ byte, length uint32, charset uint16, flags uint16) {
	switch t {
	case sqlInt:
		return 0x08, 20, 63, 0x80 // LONGLONG, binary
	case sqlFloat:
		return 0x05, 22, 63, 0x80 // DOUBLE
	case sqlTime:
		return 0x0c, 19, 63, 0x80 // DATETIME
	case sqlBool:
		return 0x01, 1, 63, 0x80 // TINY
	}
	return 0xfd, 1020, 255, 0 // VAR_STRING, utf8mb4
}

func (ms *mySession) columnDef(c sqlCol) []byte {
	typ, length, charset, flags := myType(c.typ)
	b := appendLenencStr(nil, "def")
	b = appendLenencStr(b, ms.d.db())
	b = appendLenencStr(b, "")
	b = appendLenencStr(b, "")
	b = appendLenencStr(b, c.name)
	b = appendLenencStr(b, c.name)
	b = append(b, 0x0c)
	b = binary.LittleEndian.AppendUint16(b, charset)
	b = binary.LittleEndian.AppendUint32(b, length)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint16(b, flags)
	decimals := byte(0)
	if c.typ == sqlFloat {
		decimals = 31
	}
	return append(b, decimals, 0, 0)
}

// resultSet is a result in the text protocol (COM_QUERY) or the binary
// one (prepared statements).
func (ms *mySession) resultSet(r sqlResult, binaryRows bool) [][]byte {
	out := [][]byte{appendLenenc(nil, uint64(len(r.cols)))}
	for _, c := range r.cols {
		out = append(out, ms.columnDef(c))
	}
	out = append(out, myEOF())
	for _, row := range r.rows {
		if binaryRows {
			out = append(out, myBinaryRow(r.cols, row))
			continue
		}
		var b []byte
		for i, x := range row {
			switch {
			case x.null:
				b = append(b, 0xfb)
			case i < len(r.cols) && r.cols[i].typ == sqlBool:
				b = appendLenencStr(b, map[bool]string{true: "1", false: "0"}[x.s == "true" || x.s == "1"])
			default:
				b = appendLenencStr(b, x.s)
			}
		}
		out = append(out, b)
	}
	return append(out, myEOF())
}

// myBinaryRow encodes a row of the binary protocol: a header, a NULL
// bitmap offset by two bits, then each value in its type's encoding.
func myBinaryRow(cols []sqlCol, row []sqlVal) []byte {
	bitmap := make([]byte, (len(cols)+7+2)/8)
	var vals []byte
	for i, c := range cols {
		x := null
		if i < len(row) {
			x = row[i]
		}
		if x.null {
			bitmap[(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		vals = appendMyBinary(vals, c.typ, x.s)
	}
	return append(append([]byte{0}, bitmap...), vals...)
}

func appendMyBinary(b []byte, t sqlType, s string) []byte {
	switch t {
	case sqlInt:
		n, _ := strconv.ParseInt(s, 10, 64)
		return binary.LittleEndian.AppendUint64(b, uint64(n))
	case sqlFloat:
		f, _ := strconv.ParseFloat(s, 64)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	case sqlBool:
		if s == "true" || s == "1" {
			return append(b, 1)
		}
		return append(b, 0)
	case sqlTime:
		tm, err := time.Parse(time.DateTime, s)
		if err != nil {
			return append(b, 0)
		}
		b = append(b, 7)
		b = binary.LittleEndian.AppendUint16(b, uint16(tm.Year()))
		return append(b, byte(tm.Month()), byte(tm.Day()), byte(tm.Hour()), byte(tm.Minute()), byte(tm.Second()))
	}
	return appendLenencStr(b, s)
}
