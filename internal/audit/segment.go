package audit

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/observe"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// segment is one sandbox container's life. A server that dies during a
// tool call is started again in a new segment; each segment is classified
// on its own and the phases merged.
type segment struct {
	run     *sandbox.Run
	client  *mcpclient.Client
	windows []classify.Window
	art     *sandbox.Artifacts
	ended   bool
	// mcpHits are canaries found in what the server returned, per phase.
	mcpHits map[string][]m.CanaryHit
	// ch watches what the server says outside its answers.
	ch *observe.Observer
	// transport is the HTTP transport's, closed with the segment (nil
	// for stdio).
	transport io.Closer
	// binOpened are the programs in the bin directories its trace shows
	// opened by a system call (read, not executed), set by classifySegment.
	binOpened []string
	// texts are the raw results of its calls; records everything it
	// emitted, for the comparison of runs (internal/differential).
	texts   []differential.Text
	records []differential.Record
	// oddExec is set when its trace is cut or shows an exec that failed
	// after the kernel may have opened a program (ELOOP, ENOEXEC, E2BIG,
	// …): its file watcher's programs are then not the traced run's.
	oddExec bool
	// probes are what its listening sockets answered after the calls.
	probes   []sinklog.Probe
	probedAt time.Time
}

func (s *segment) window(name string, start time.Time) {
	s.windows = append(s.windows, classify.Window{Name: name, Start: start})
}

// answered notes when the current window's call was answered: what the
// server does from then on was not needed for the answer.
func (s *segment) answered(t time.Time) {
	if n := len(s.windows); n > 0 {
		s.windows[n-1].Answered = t
	}
}

func startSegment(ctx context.Context, sb *sandbox.Sandbox, spec sandbox.Spec, cs *canary.Set, o Options) (*segment, error) {
	ch := observe.New(cs)
	spec.Stderr = ch.Stderr()
	run, err := sb.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	seg := &segment{run: run, mcpHits: map[string][]m.CanaryHit{}, ch: ch}
	seg.client, seg.transport = newClient(run, spec, ch, mcpclient.Options{Roots: []string{"file://" + variant.MovePath(Workspace, Home, spec.Home)}, Observe: ch.Observe,
		ClientName: o.clientName(), ClientVersion: o.clientVersion()})
	seg.window(m.PhaseStartup, run.Started)
	return seg, nil
}

// finish stops the container and copies its evidence out.
func (s *segment) finish(ctx context.Context, maxTrace int64) error {
	if s.ended {
		return nil
	}
	s.ended = true
	if err := s.run.Stop(context.WithoutCancel(ctx), 2*time.Second); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	art, err := s.run.Collect(cctx, maxTrace)
	s.art = art
	return err
}

func (s *segment) cleanup() {
	s.client.Close()
	if s.transport != nil {
		s.transport.Close()
	}
	s.run.Remove()
	if s.art != nil {
		os.Remove(s.art.TraceFile)
		os.Remove(s.art.InstallTraceFile)
	}
}
