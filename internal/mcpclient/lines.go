package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
)

// keepEnds is how much of an oversized line is kept at each end: enough
// to find its id, and to search what it starts and ends with.
const keepEnds = 64 << 10

// rawLine is one line read. An oversized line keeps only its head and
// tail; size is its full length.
type rawLine struct {
	head, tail []byte
	size       int
}

// readLine reads one line, discarding the middle of lines longer than max
// but keeping their first and last bytes: the head to find the id of an
// oversized response, both ends to search for what a server hides there.
func readLine(br *bufio.Reader, max int) (rawLine, bool, error) {
	var l rawLine
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		l.size += len(frag)
		switch {
		case !tooLong && l.size <= max:
			l.head = append(l.head, frag...)
		case !tooLong:
			tooLong = true
			all := append(l.head, frag...)
			l.head = all[:min(len(all), keepEnds)]
			l.tail = appendTail(nil, all[len(l.head):])
		default:
			l.tail = appendTail(l.tail, frag)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.head = bytes.TrimSpace(l.head)
		l.tail = bytes.TrimSpace(l.tail)
		return l, tooLong, err
	}
}

// appendTail appends frag to tail, keeping the last keepEnds bytes.
func appendTail(tail, frag []byte) []byte {
	tail = append(tail, frag...)
	if over := len(tail) - keepEnds; over > 0 {
		tail = append(tail[:0], tail[over:]...)
	}
	return tail
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// idKey normalizes an id so that 7 and "7" from a sloppy server still
// match the request.
func idKey(raw json.RawMessage) string {
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
