package sandbox

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// Run is a started sandbox container.
type Run struct {
	sb      *Sandbox
	ID      string
	Started time.Time
	// Stdout is the server's standard output.
	Stdout io.Reader
	stdin  interface {
		io.Writer
		CloseWrite() error
	}
	hijack  *client.HijackedResponse
	stderr  *Tail
	errOut  io.Writer // stderr, and Spec.Stderr when set
	done    chan struct{}
	waitErr error
	once    sync.Once
	sink    *sinkRun
	// coverageDir is Spec.CoverageDir, read back by Collect.
	coverageDir string
	// Forced is set when the entrypoint did not end the run on request and
	// the engine had to kill the container.
	Forced bool
}

// attach connects to the container's standard streams before it starts,
// so that none of the server's first output is lost. The engine multiplexes
// stdout and stderr on one stream; stderr only feeds a bounded tail,
// because a hostile server may write without end.
func (r *Run) attach(ctx context.Context) error {
	att, err := r.sb.Engine.ContainerAttach(ctx, r.ID, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Errorf("attaching to sandbox: %w", err)
	}
	r.hijack = &att.HijackedResponse
	r.stdin = hijackWriter{&att.HijackedResponse}
	pr, pw := io.Pipe()
	r.Stdout = pr
	go func() {
		_, err := stdcopy.StdCopy(pw, r.errOut, att.Reader)
		pw.CloseWithError(err)
	}()
	return nil
}

// hijackWriter is the server's stdin: writes go straight to the hijacked
// connection, and CloseWrite half-closes it so the server sees EOF while
// its output can still be read.
type hijackWriter struct{ h *client.HijackedResponse }

func (w hijackWriter) Write(p []byte) (int, error) { return w.h.Conn.Write(p) }
func (w hijackWriter) CloseWrite() error           { return w.h.CloseWrite() }

// Write sends bytes to the server's standard input.
func (r *Run) Write(p []byte) (int, error) { return r.stdin.Write(p) }

// CloseStdin signals end of input to the server.
func (r *Run) CloseStdin() error { return r.stdin.CloseWrite() }

// Done is closed when the container has exited.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stderr returns the sanitized tail of the server's standard error.
func (r *Run) Stderr() string { return r.stderr.String() }

// TraceSize returns the current size of the trace file, for idle detection.
func (r *Run) TraceSize(ctx context.Context) (int64, error) {
	st, err := r.sb.Engine.ContainerStatPath(ctx, r.ID, client.ContainerStatPathOptions{Path: tracePath})
	if err != nil {
		return 0, err
	}
	return st.Stat.Size, nil
}
