package sandbox

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Tail keeps the last N bytes written to it. It is safe for concurrent use.
type Tail struct {
	mu    sync.Mutex
	buf   []byte
	max   int
	total int64
}

// NewTail returns a Tail that keeps max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept bytes as printable text: invalid UTF-8 and
// control characters other than newline and tab become U+FFFD, so terminal
// escapes from the sandbox cannot reach the user's terminal.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Sanitize(string(t.buf))
}

// Total is the number of bytes ever written.
func (t *Tail) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Sanitize makes untrusted text safe to print.
func Sanitize(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(unicode.ReplacementChar)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.In(r, unicode.Bidi_Control):
			b.WriteRune(unicode.ReplacementChar)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
