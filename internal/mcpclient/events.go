package mcpclient

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Server-sent events, as both HTTP transports read them: the event name
// and its data lines, bounded per line (maxEventLine) and per event
// (maxData; the rest of a longer event is dropped, the cut data is then
// handled as the oversized or broken message it is).

// maxEventLine bounds one line of an event stream; the rest of a longer
// line is dropped (the event's data is then malformed, and counted).
const maxEventLine = 1 << 20

// scanEvents calls fn for each event in r until r ends or fn returns
// false. Comments and fields other than event and data are ignored.
func scanEvents(r io.Reader, maxData int, fn func(event string, data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	event, has := "", false
	flush := func() bool {
		ok := true
		if has {
			ok = fn(event, data)
		}
		data, event, has = data[:0], "", false
		return ok
	}
	for {
		l, err := readEventLine(br)
		l = bytes.TrimRight(l, "\r\n")
		switch {
		case len(l) == 0 && err == nil:
			if !flush() {
				return nil
			}
		case fieldIs(l, "data"):
			v := fieldValue(l, "data")
			if has {
				data = appendBounded(data, []byte{'\n'}, maxData)
			}
			data, has = appendBounded(data, v, maxData), true
		case fieldIs(l, "event"):
			event = truncate(string(fieldValue(l, "event")), 100)
		}
		if err != nil {
			flush()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// fieldIs reports whether line l is the field name (not a longer name
// such as "database").
func fieldIs(l []byte, name string) bool {
	return bytes.HasPrefix(l, []byte(name)) && (len(l) == len(name) || l[len(name)] == ':')
}

func fieldValue(l []byte, name string) []byte {
	v := bytes.TrimPrefix(l[len(name):], []byte(":"))
	return bytes.TrimPrefix(v, []byte(" "))
}

func appendBounded(b, v []byte, max int) []byte {
	if room := max - len(b); room > 0 {
		return append(b, v[:min(len(v), room)]...)
	}
	return b
}

// readEventLine reads one line, keeping at most maxEventLine bytes of it.
func readEventLine(br *bufio.Reader) ([]byte, error) {
	var l []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := maxEventLine - len(l); room > 0 {
			l = append(l, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return l, err
	}
}
