package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// answer is what a body held for the request it answered.
type answer struct {
	answered bool
	// errMessage is a JSON-RPC error in the body that answers no id.
	errMessage string
}

// readJSON feeds a JSON body to the Client as one line. Line breaks become
// spaces (inside a valid JSON string there are none).
func (t *HTTPTransport) readJSON(r io.Reader, id json.RawMessage) answer {
	b, err := io.ReadAll(r)
	if len(bytes.TrimSpace(b)) == 0 {
		return answer{}
	}
	_ = err // a cut or broken body is still passed on: it is evidence
	if t.line(b, id) {
		return answer{answered: true}
	}
	return answer{errMessage: errMessageOf(b)}
}

// maxEventLine bounds one line of an event stream; the rest of a longer
// line is dropped (the event's data is then malformed, and counted).
const maxEventLine = 1 << 20

// readEvents feeds each event's data to the Client as one line.
func (t *HTTPTransport) readEvents(r io.Reader, id json.RawMessage) answer {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	has := false
	var a answer
	flush := func() {
		if has && t.line(data, id) {
			a.answered = true
		} else if has && a.errMessage == "" {
			a.errMessage = errMessageOf(data)
		}
		data, has = data[:0], false
	}
	for {
		l, err := readEventLine(br)
		l = bytes.TrimRight(l, "\r\n")
		switch {
		case len(l) == 0 && err == nil:
			flush()
		case bytes.HasPrefix(l, []byte("data")):
			v := l[len("data"):]
			if len(v) > 0 && v[0] != ':' {
				break // a field named e.g. "database": ignored
			}
			v = bytes.TrimPrefix(bytes.TrimPrefix(v, []byte(":")), []byte(" "))
			if has {
				data = append(data, '\n')
			}
			data, has = append(data, v...), true
		}
		if err != nil {
			flush()
			return a
		}
	}
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

// line passes one message to the Client and reports whether it is the
// answer to id.
func (t *HTTPTransport) line(b []byte, id json.RawMessage) bool {
	b = bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, bytes.TrimSpace(b))
	answers := false
	if len(id) > 0 && t.maxLine > 0 && len(b) > t.maxLine {
		// The Client fails the call as too large when it finds the id in
		// the message's head, as it does on stdio.
		m := reTooLongID.FindSubmatch(b[:min(len(b), keepEnds)])
		answers = m != nil && string(m[1]) == idKey(id)
	} else if len(id) > 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		answers = json.Unmarshal(b, &m) == nil && m.Method == "" && idKey(m.ID) == idKey(id)
	}
	t.lineMu.Lock()
	defer t.lineMu.Unlock()
	if _, err := t.pw.Write(append(b, '\n')); err != nil {
		return false
	}
	return answers
}
