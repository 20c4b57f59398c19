package sandbox

import (
	"sync"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
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
	return textsafe.Clean(string(t.buf))
}

// Total is the number of bytes ever written.
func (t *Tail) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}
