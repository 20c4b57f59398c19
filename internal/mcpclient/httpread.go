package mcpclient

import (
	"bytes"
	"encoding/json"
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

// readEvents feeds each event's data to the Client as one line.
func (t *HTTPTransport) readEvents(r io.Reader, id json.RawMessage) answer {
	var a answer
	_ = scanEvents(r, t.maxData(), func(_ string, data []byte) bool {
		if t.line(data, id) {
			a.answered = true
		} else if a.errMessage == "" {
			a.errMessage = errMessageOf(data)
		}
		return true
	})
	return a
}

// maxData bounds one event's data: just over the Client's MaxLine, so a
// longer event reaches the Client as the oversized message it is.
func (t *HTTPTransport) maxData() int {
	if t.maxLine > 0 {
		return t.maxLine + keepEnds
	}
	return int(t.opts.MaxBody)
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
	if t.in.line(b) != nil {
		return false
	}
	return answers
}
