package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// ProbeTimeout bounds the whole listener probe.
const ProbeTimeout = 30 * time.Second

// maxProbeOutput bounds what is read of the probe's output: the bytes in
// it are the server's.
const maxProbeOutput = 4 << 20

// ProbeListeners asks every TCP socket the server listens on what it
// serves (internal/sink's probe, run in the sink container, which owns
// the run's network namespace: the probe connects on loopback only, so
// its traffic cannot leave it). It returns what answered, and when; an
// error when the run has no sink (network mode none: no namespace to
// reach) or the probe could not run. The probe is not a process of the
// server's: nothing of it is in the trace but the server's answers.
func (r *Run) ProbeListeners(ctx context.Context) ([]sinklog.Probe, time.Time, error) {
	at := time.Now()
	ex, ok := r.sb.Engine.(Execer)
	if !ok || r.sink == nil {
		return nil, at, ErrNoPath
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	created, err := ex.ExecCreate(ctx, r.sink.id, client.ExecCreateOptions{
		User: "0:0", AttachStdout: true, AttachStderr: true,
		Cmd: []string{sinkBinPath, "sink", "--probe"},
	})
	if err != nil {
		return nil, at, fmt.Errorf("creating the listener probe: %w", err)
	}
	att, err := ex.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, at, fmt.Errorf("starting the listener probe: %w", err)
	}
	defer att.Close()
	go func() { <-ctx.Done(); att.Close() }()
	var out bytes.Buffer
	_, err = stdcopy.StdCopy(&limitWriter{w: &out, n: maxProbeOutput}, io.Discard, att.Reader)
	if err != nil && ctx.Err() == nil {
		return nil, at, fmt.Errorf("reading the listener probe: %w", err)
	}
	probes, _ := sinklog.ReadProbes(out.Bytes())
	return probes, at, nil
}

// limitWriter keeps the first n bytes written to it and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}
