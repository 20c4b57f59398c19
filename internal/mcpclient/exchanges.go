package mcpclient

import (
	"io"
	"sync"
)

// exchanges runs a transport's exchanges and waits for them at Close. A write
// that arrives once Close began starts nothing: adding to a WaitGroup
// whose Wait is running is a race, and the exchange would outlive the
// transport.
type exchanges struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// goRun runs f in its own goroutine unless Close began.
func (g *exchanges) goRun(f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	go func() { defer g.wg.Done(); f() }()
	return true
}

// close refuses new work and waits for the running exchanges.
func (g *exchanges) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}

// feed is a transport's side of the Client's input: one message per line,
// counted, so a failure the transport makes up out of band can wait until
// the Client handled what came before it (Client.failAfter).
type feed struct {
	mu sync.Mutex
	pw *io.PipeWriter
	n  int64
}

// line gives the Client one message.
func (f *feed) line(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := f.pw.Write(append(b, '\n'))
	if err == nil {
		f.n++
	}
	return err
}

// written is the number of lines given to the Client so far.
func (f *feed) written() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}
