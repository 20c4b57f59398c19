package canary

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// MaxInflated bounds the bytes one compressed payload may expand to before
// it is searched: a zip bomb costs at most this much memory, and the rest
// of the stream is not read.
const MaxInflated = 4 << 20

// maxCodings bounds a Content-Encoding chain ("gzip, br").
const maxCodings = 3

// Inflate decodes data compressed as contentEncoding (an HTTP
// Content-Encoding value: gzip, x-gzip, deflate, br, or a comma-separated
// chain of them), or, when that is empty or identity, as the gzip or zlib
// stream its first bytes announce. It returns the decoded bytes (at most
// MaxInflated; a truncated or corrupt stream gives what decoded before the
// damage) and the coding's name, or nil and "" when data is not
// compressed.
func Inflate(data []byte, contentEncoding string) ([]byte, string) {
	var codings []string
	for _, c := range strings.Split(strings.ToLower(contentEncoding), ",") {
		if c = strings.TrimSpace(c); c != "" && c != "identity" {
			codings = append(codings, c)
		}
	}
	if len(codings) == 0 {
		if c := sniff(data); c != "" {
			codings = []string{c}
		}
	}
	if len(codings) == 0 || len(codings) > maxCodings {
		return nil, ""
	}
	out := data
	for i := len(codings) - 1; i >= 0; i-- { // the last coding applied is undone first
		out = decode(out, codings[i])
		if len(out) == 0 {
			return nil, ""
		}
	}
	return out, strings.Join(codings, "+")
}

// sniff names the compression a payload's magic bytes announce: gzip
// (1f 8b 08) or zlib (a deflate header whose check bits are valid).
// Brotli has no magic number; it is decoded only when announced.
func sniff(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8:
		return "gzip"
	case len(data) >= 2 && data[0]&0x0f == 8 && data[0]>>4 <= 7 && (uint16(data[0])<<8|uint16(data[1]))%31 == 0 && data[1]&0x20 == 0:
		return "deflate"
	}
	return ""
}

// decode undoes one coding, bounded by MaxInflated.
func decode(data []byte, coding string) []byte {
	var r io.Reader
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil
		}
		r = zr
	case "deflate":
		// The standard says zlib; some clients send a bare deflate stream.
		if zr, err := zlib.NewReader(bytes.NewReader(data)); err == nil {
			if out := readBounded(zr); len(out) > 0 {
				return out
			}
		}
		r = flate.NewReader(bytes.NewReader(data))
	case "br":
		r = brotli.NewReader(bytes.NewReader(data))
	default:
		return nil
	}
	return readBounded(r)
}

// readBounded reads at most MaxInflated bytes, keeping what was read
// before an error (a body cut at the sink's size limit still yields its
// head).
func readBounded(r io.Reader) []byte {
	out, _ := io.ReadAll(io.LimitReader(r, MaxInflated))
	return out
}
