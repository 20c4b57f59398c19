package audit

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/trace"
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
}

func (s *segment) window(name string, start time.Time) {
	s.windows = append(s.windows, classify.Window{Name: name, Start: start})
}

func startSegment(ctx context.Context, sb *sandbox.Sandbox, spec sandbox.Spec) (*segment, error) {
	run, err := sb.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	seg := &segment{run: run, mcpHits: map[string][]m.CanaryHit{}}
	seg.client = mcpclient.New(run.Stdout, run, mcpclient.Options{Roots: []string{"file://" + Workspace}})
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
	s.run.Remove()
	if s.art != nil {
		os.Remove(s.art.TraceFile)
		os.Remove(s.art.InstallTraceFile)
	}
}

func execute(ctx context.Context, d Deps, o Options, p *Prepared) (*Result, error) {
	log, man, cs := d.Log, p.Manifest, p.Canaries
	runCtx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	sb := &sandbox.Sandbox{Engine: d.Engine, Log: log}
	started := time.Now()
	seg, err := startSegment(runCtx, sb, p.Spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrRuntime, err)
	}
	segments := []*segment{seg}
	defer func() {
		for _, s := range segments {
			s.cleanup()
		}
	}()
	man.Run.ContainerID = seg.run.ID
	man.Run.StartedAt = seg.run.Started.UTC().Format(time.RFC3339Nano)

	var ses session
	startupTimeout := o.StartupTimeout
	if p.Spec.Install != nil {
		startupTimeout += p.Spec.Install.Timeout
	}
	handshake, exitedEarly := drive(runCtx, o, startupTimeout, seg.client, seg.run, &ses)
	ses.handshake = handshake
	tStartupEnd := time.Now()
	timing := []m.PhaseTiming{{Phase: m.PhaseStartup, MS: tStartupEnd.Sub(seg.run.Started).Milliseconds()}}

	if handshake && !exitedEarly {
		x := &exerciser{o: o, sb: sb, spec: p.Spec, cs: cs, ses: &ses, log: log}
		tCalls := time.Now()
		seg, exitedEarly = x.run(runCtx, seg, &segments)
		man.Calls = x.calls
		if len(x.calls) > 0 {
			timing = append(timing, m.PhaseTiming{Phase: "calls", MS: time.Since(tCalls).Milliseconds()})
		}
		if x.restarts > 0 {
			man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("the server died during calls and was restarted %d time(s)", x.restarts))
		}
		if seg != nil && !exitedEarly {
			tIdle := time.Now()
			seg.window(m.PhaseIdle, tIdle)
			exitedEarly = waitIdle(runCtx, o, seg.run)
			timing = append(timing, m.PhaseTiming{Phase: m.PhaseIdle, MS: time.Since(tIdle).Milliseconds()})
		}
	} else {
		seg.window(m.PhaseIdle, tStartupEnd)
	}
	deadlineHit := runCtx.Err() != nil && ctx.Err() == nil
	log.Debug("stopping", "ms", time.Since(started).Milliseconds())
	for _, s := range segments {
		s.client.Close()
		if err := s.finish(ctx, o.MaxTraceBytes); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return failed(man, started, ses, cs, s.run.Stderr(), "collecting results from the sandbox failed"), fmt.Errorf("%w: %v", ErrRuntime, err)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // interrupted: the deferred cleanup removes everything
	}
	log.Debug("collected", "ms", time.Since(started).Milliseconds())
	for _, s := range segments {
		if s.run.Forced {
			man.Run.Notes = append(man.Run.Notes, "the sandbox did not stop on request and was killed by the engine")
		}
	}
	ses.noise = 0
	for _, s := range segments {
		ses.noise += s.client.Noise()
	}
	first, last := segments[0], segments[len(segments)-1]
	if o.KeepTrace != "" && first.art.TraceFile != "" {
		if err := fsutil.CopyFile(first.art.TraceFile, o.KeepTrace, 0o644); err != nil {
			log.Warn("saving raw trace", "err", err)
		}
	}

	// Outcome: how the (last) server process ended.
	state, _ := last.run.State(context.WithoutCancel(ctx))
	rc, hasRC := exitStatus(last.art.Status)
	switch {
	case deadlineHit:
		man.Outcome = m.Outcome{Status: m.StatusKilled, Reason: "the audit deadline was reached"}
	case state.OOMKilled:
		man.Outcome = m.Outcome{Status: m.StatusKilled, Reason: "the memory limit was reached"}
	case exitedEarly:
		man.Outcome = m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own"}
		if !handshake {
			man.Outcome.Reason = "the server exited before answering initialize"
		}
		if hasRC {
			man.Outcome.ExitCode = &rc
		}
	case !handshake:
		man.Outcome = m.Outcome{Status: m.StatusNoHandshake, Reason: "initialize was not answered within " + startupTimeout.String()}
	default:
		man.Outcome = m.Outcome{Status: m.StatusOK}
	}

	var evidence []classify.Evidence
	var stats m.TraceStats
	for i, s := range segments {
		phases, ev, st, err := classifySegment(s, i == 0, p, &ses, man)
		if err != nil {
			return failed(man, started, ses, cs, s.run.Stderr(), "reading the trace failed"), fmt.Errorf("%w: %v", ErrRuntime, err)
		}
		man.Phases = append(man.Phases, phases...)
		evidence = append(evidence, ev...)
		stats.Bytes += st.Bytes
		stats.Lines += st.Lines
		stats.Events += st.Events
		stats.Malformed += st.Malformed
		stats.Truncated = stats.Truncated || st.Truncated
	}
	fillServer(man, &ses, cs)
	man.Run.DurationMS = time.Since(started).Milliseconds()
	man.Run.PhaseTimingMS = timing
	man.Run.Trace = stats
	var stderr strings.Builder
	for _, s := range segments {
		stderr.WriteString(s.run.Stderr())
	}
	redacted := cs.Redact(stderr.String())
	man.Run.StderrTail = tail(redacted, 4096)
	man.Run.StdoutNoise = ses.noise
	man.Run.Notes = append(man.Run.Notes, ses.notes...)
	if first.art.InstallLog != "" && man.PhaseByName(m.PhaseInstall) != nil {
		man.Run.Notes = append(man.Run.Notes, "install output (tail): "+tail(cs.Redact(first.art.InstallLog), 1024))
	}
	markGiven(man, o.CanaryEnv)
	m.Canonicalize(man) // merges the phases of restarted segments
	return &Result{Manifest: man, Stderr: redacted, Evidence: evidence}, nil
}

// markGiven flags the hits on canaries that stand in for credentials the
// server was given (canary_env).
func markGiven(man *m.Manifest, given []string) {
	names := map[string]bool{}
	for _, n := range given {
		names["env:"+n] = true
	}
	for i := range man.Phases {
		for j := range man.Phases[i].Canaries {
			h := &man.Phases[i].Canaries[j]
			h.Given = names[h.Canary]
		}
	}
}

// classifySegment parses one segment's traces and sink log and classifies
// them in its windows.
func classifySegment(s *segment, first bool, p *Prepared, ses *session, man *m.Manifest) ([]m.Phase, []classify.Evidence, m.TraceStats, error) {
	art := s.art
	for _, st := range art.Status {
		if st == "seed-failed" || strings.HasPrefix(st, "resolv.conf") || st == "install-timeout" {
			man.Run.Notes = append(man.Run.Notes, "sandbox: "+st)
		}
	}
	windows := slices.Clone(s.windows)
	var events []trace.Event
	var st m.TraceStats
	if first && art.InstallTraceFile != "" {
		it, err := parseTrace(art.InstallTraceFile, p.maxTrace)
		if err != nil {
			return nil, nil, st, err
		}
		events = append(events, it.Events...)
		st = addStats(st, it.Stats, len(it.Events))
		if start, end, ok := installWindow(art.Status); ok {
			windows = append([]classify.Window{{Name: m.PhaseInstall, Start: start, End: end}}, windows...)
			windows[1].Start = end
		}
	}
	tr, err := parseTrace(art.TraceFile, p.maxTrace)
	if err != nil {
		return nil, nil, st, err
	}
	offset := st.Lines
	for _, ev := range tr.Events {
		ev.Seq += offset
		events = append(events, ev)
	}
	st = addStats(st, tr.Stats, len(tr.Events))
	st.Truncated = st.Truncated || art.TraceCut
	var sinkEvents []sink.Event
	if art.SinkErr != nil {
		man.Run.Notes = append(man.Run.Notes, "the network sink's log could not be read: "+sanitize(art.SinkErr.Error(), 200))
	}
	if art.SinkLog != nil {
		var rs sink.ReadStats
		sinkEvents, rs = sink.Read(art.SinkLog, 0)
		if rs.Truncated {
			man.Run.Notes = append(man.Run.Notes, "the network sink's log reached its size limit")
		}
	}
	var reqs []classify.ServerRequest
	for _, r := range s.client.ServerRequests() {
		reqs = append(reqs, classify.ServerRequest{Method: r.Method, Answer: r.Answer, Time: r.Time})
	}
	out := classify.Classify(classify.Input{
		Layout: p.Layout, Events: events, Windows: windows, Canaries: p.Canaries,
		Resolvers: []string{resolver}, Witness: witness(p.Layout, art.Witness),
		Sink: sinkEvents, TraceTruncated: st.Truncated, ServerRequests: reqs, Plumbing: plumbing,
	})
	for i := range out.Phases {
		ph := &out.Phases[i]
		ph.Canaries = append(ph.Canaries, s.mcpHits[ph.Name]...)
		if st.Truncated && ph.Name == windows[len(windows)-1].Name {
			ph.Alerts = append(ph.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
				Detail: "the trace exceeded its size limit; later behavior is missing"})
		}
	}
	return out.Phases, out.Evidence, st, nil
}

func addStats(st m.TraceStats, t trace.Stats, events int) m.TraceStats {
	st.Bytes += t.Bytes
	st.Lines += t.Lines
	st.Events += events
	st.Malformed += t.Malformed
	st.Truncated = st.Truncated || t.Truncated
	return st
}

// installWindow reads "install-start T" and "install-end RC T".
func installWindow(status []string) (start, end time.Time, ok bool) {
	var s, e bool
	for _, line := range status {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "install-start":
			start, s = parseTime(f[1])
		case len(f) == 3 && f[0] == "install-end":
			end, e = parseTime(f[2])
		}
	}
	return start, end, s && e
}

func parseTime(s string) (time.Time, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

// plumbing recognizes the programs mcp-audit starts for the install
// phase: setpriv, the marked shell, and npm itself.
func plumbing(path string, argv []string) bool {
	switch {
	case path == "/usr/bin/setpriv":
		return true
	case len(argv) >= 3 && (path == "/bin/sh" || path == "/usr/bin/sh") && strings.HasPrefix(argv[2], sandbox.InstallMarker):
		return true
	case path == "/usr/local/bin/npm" || path == "/usr/bin/env" && len(argv) > 1 && argv[1] == "node":
		return true
	case path == NodeBin && len(argv) > 1 && (argv[1] == "/usr/local/bin/npm" || strings.HasSuffix(argv[1], "npm-cli.js")):
		return true
	}
	return false
}
