package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/offers"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// execute runs a prepared server in the sandbox: start it, drive the
// handshake, exercise its tools, let it go idle, collect the evidence,
// decide the outcome and classify the behavior.
func execute(ctx context.Context, d Deps, o Options, p *Prepared) (*Result, error) {
	if p.client != "" {
		o.ClientInfo = p.client // the witness run's client
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Timing.Deadline)
	defer cancel()
	ex := newExecution(d, o, p)
	o.step(StepStartup, 0, 0)
	seg, err := ex.start(runCtx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	defer ex.cleanup()

	exited := ex.drive(runCtx, seg)
	if ex.ses.handshake && !exited {
		seg, exited = ex.exercise(runCtx, seg)
		if seg != nil && !exited {
			exited = ex.idle(runCtx, seg)
		}
	} else {
		// Nothing more will happen: whatever follows startup is idle.
		seg.window(m.PhaseIdle, ex.startupEnd)
	}
	deadlineHit := runCtx.Err() != nil && ctx.Err() == nil
	o.step(StepAnalysis, 0, 0)

	ex.log.Debug("stopping", "ms", time.Since(ex.started).Milliseconds())
	if res, err := ex.collect(ctx); err != nil {
		return res, err
	}
	ex.log.Debug("collected", "ms", time.Since(ex.started).Milliseconds())
	p.Manifest.Outcome = decideOutcome(ex.ending(ctx, deadlineHit, exited))
	return ex.classify(ctx)
}

// execution is the state of one run in the sandbox, carried from step to
// step of execute.
type execution struct {
	o   Options
	p   *Prepared
	log *slog.Logger
	sb  *sandbox.Sandbox
	// segments are every container started, the restarts included.
	segments []*segment
	ses      session
	// later is what the server listed again after the calls (nil when
	// no calls were made or the server was gone).
	later *session
	// relisted are the listings made when the server announced a change.
	relisted []*session
	timing   []m.PhaseTiming
	// startupTimeout is how long initialize is given: the install phase
	// runs before the server starts, so its time is added.
	startupTimeout time.Duration
	started        time.Time
	startupEnd     time.Time
	// idleStart is when the idle phase began (zero without one).
	idleStart time.Time
}

func newExecution(d Deps, o Options, p *Prepared) *execution {
	ex := &execution{o: o, p: p, log: d.Log, sb: &sandbox.Sandbox{Engine: d.Engine, Log: d.Log},
		startupTimeout: o.Timing.StartupTimeout, started: time.Now()}
	if p.Spec.Install != nil {
		ex.startupTimeout += p.Spec.Install.Timeout
	}
	return ex
}

// start starts the first container.
func (ex *execution) start(ctx context.Context) (*segment, error) {
	seg, err := startSegment(ctx, ex.sb, ex.p.Spec, ex.p.Canaries, ex.o)
	if err != nil {
		return nil, err
	}
	ex.segments = []*segment{seg}
	ex.p.Manifest.Run.ContainerID = seg.run.ID
	ex.p.Manifest.Run.StartedAt = seg.run.Started.UTC().Format(time.RFC3339Nano)
	return seg, nil
}

// cleanup removes every container and the local trace copies.
func (ex *execution) cleanup() {
	for _, s := range ex.segments {
		s.cleanup()
	}
}

// drive performs the handshake and the list calls (phase startup). It
// reports whether the server exited meanwhile.
func (ex *execution) drive(ctx context.Context, seg *segment) bool {
	handshake, exited := drive(ctx, ex.o, ex.startupTimeout, seg.client, seg.run, &ex.ses)
	ex.ses.handshake = handshake
	ex.startupEnd = time.Now()
	ex.timing = []m.PhaseTiming{{Phase: m.PhaseStartup, MS: ex.startupEnd.Sub(seg.run.Started).Milliseconds()}}
	return exited
}

// exercise makes the planned calls. It returns the segment alive at the
// end (nil when a restart failed) and whether that server exited.
func (ex *execution) exercise(ctx context.Context, seg *segment) (*segment, bool) {
	man := ex.p.Manifest
	xr := &exerciser{o: ex.o, sb: ex.sb, spec: ex.p.Spec, cs: ex.p.Canaries, ses: &ex.ses, log: ex.log}
	t := time.Now()
	seg, exited := xr.run(ctx, seg, &ex.segments)
	man.Calls, man.Apps = xr.calls, xr.apps
	ex.relisted = xr.relisted
	if len(xr.calls) > 0 {
		ex.timing = append(ex.timing, m.PhaseTiming{Phase: "calls", MS: time.Since(t).Milliseconds()})
	}
	if xr.restarts > 0 {
		man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("the server died during calls and was restarted %d time(s)", xr.restarts))
	}
	return seg, exited
}

// idle waits for the server to go quiet (phase idle). It reports whether
// the server exited meanwhile.
func (ex *execution) idle(ctx context.Context, seg *segment) bool {
	t := time.Now()
	ex.o.step(StepIdle, 0, 0)
	seg.window(m.PhaseIdle, t)
	ex.relist(ctx, seg)
	var err error
	if seg.probes, seg.probedAt, err = seg.run.ProbeListeners(ctx); err != nil && !errors.Is(err, sandbox.ErrNoPath) {
		ex.p.Manifest.Run.Notes = append(ex.p.Manifest.Run.Notes, "listeners not probed: "+textsafe.Text(err.Error(), 200))
	}
	ex.idleStart = t
	fastClock(ctx, ex.p.Spec.ClockRate, seg)
	exited := waitIdle(ctx, idleOptions(ex.o, t.Sub(seg.run.Started)), seg.run)
	ex.timing = append(ex.timing, m.PhaseTiming{Phase: m.PhaseIdle, MS: time.Since(t).Milliseconds()})
	return exited
}

// collect stops every container and copies its evidence out. ctx is the
// caller's: collection goes on after the audit deadline. An error ends the
// audit; the result, if any, is a manifest of what could be kept.
func (ex *execution) collect(ctx context.Context) (*Result, error) {
	man := ex.p.Manifest
	for _, s := range ex.segments {
		s.client.Close()
		if err := s.finish(ctx, ex.o.Sandbox.MaxTraceBytes); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return ex.failed(s, "collecting results from the sandbox failed"), fmt.Errorf("%w: %w", ErrRuntime, err)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // interrupted: the deferred cleanup removes everything
	}
	for _, s := range ex.segments {
		if s.run.Forced {
			man.Run.Notes = append(man.Run.Notes, "the sandbox did not stop on request and was killed by the engine")
		}
	}
	ex.ses.noise = 0
	for _, s := range ex.segments {
		ex.ses.noise += s.client.Noise()
	}
	if first := ex.segments[0]; ex.o.Sandbox.KeepTrace != "" && first.art.TraceFile != "" {
		if err := fsutil.CopyFile(first.art.TraceFile, ex.o.Sandbox.KeepTrace, 0o644); err != nil {
			ex.log.Warn("saving raw trace", "err", err)
		}
	}
	return nil, nil
}

// ending gathers what decides the outcome: how the last server ended.
func (ex *execution) ending(ctx context.Context, deadlineHit, exited bool) ending {
	last := ex.segments[len(ex.segments)-1]
	state, _ := last.run.State(context.WithoutCancel(ctx))
	return ending{deadlineHit: deadlineHit, oomKilled: state.OOMKilled, exited: exited,
		handshake: ex.ses.handshake, refused: ex.ses.refused, status: last.art.Status, startupTimeout: ex.startupTimeout}
}

// classify turns every segment's evidence into phases and completes the
// manifest.
func (ex *execution) classify(ctx context.Context) (*Result, error) {
	man := ex.p.Manifest
	var evidence []classify.Evidence
	var stats m.TraceStats
	for i, s := range ex.segments {
		var extra []classify.Observed
		if i == 0 {
			extra = offers.Hits(&ex.ses.Lists, listsOf(append(ex.relisted, ex.later)), ex.p.Canaries)
		}
		phases, ev, st, err := classifySegment(ctx, s, i == 0, ex.p, extra, ex.o.CanaryEnv, man)
		if ctx.Err() != nil {
			return ex.failed(s, "interrupted during analysis"), ctx.Err()
		}
		if err != nil {
			return ex.failed(s, "reading the trace failed"), fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		man.Phases = append(man.Phases, phases...)
		evidence = append(evidence, ev...)
		stats = sumStats(stats, st)
	}
	return ex.result(evidence, stats), nil
}

// result records the server's offer and the run's metadata.
func (ex *execution) result(evidence []classify.Evidence, stats m.TraceStats) *Result {
	man, cs := ex.p.Manifest, ex.p.Canaries
	offers.Fill(man, &ex.ses.Lists, cs)
	man.ListChanges = offers.Changes(man, listsOf(append(ex.relisted, ex.later)), cs)
	man.Run.DurationMS = time.Since(ex.started).Milliseconds()
	man.Run.PhaseTimingMS = ex.timing
	first, last := ex.segments[0], ex.segments[len(ex.segments)-1]
	man.Run.ServerTime = serverTime(last.art.Status.ClockApplied(), first.run.Started, ex.timing, idleLead(last, ex.idleStart))
	man.Run.Trace = stats
	man.Run.CodeCoverage = measureCode(ex.segments, ex.p)
	var stderr strings.Builder
	for _, s := range ex.segments {
		stderr.WriteString(s.run.Stderr())
	}
	redacted := cs.Redact(stderr.String())
	man.Run.StderrTail = textsafe.Tail(textsafe.Clean(redacted), 4096)
	man.Run.StdoutNoise = ex.ses.noise
	man.Run.Notes = append(man.Run.Notes, ex.ses.notes...)
	man.Run.Notes = append(man.Run.Notes, clockNotes(first.art.Status)...)
	if first.art.InstallLog != "" && man.PhaseByName(m.PhaseInstall) != nil {
		man.Run.Notes = append(man.Run.Notes, "install output (tail): "+textsafe.Tail(textsafe.Clean(cs.Redact(first.art.InstallLog)), 1024))
	}
	m.Canonicalize(man) // merges the phases of restarted segments
	man.Coverage = coverage.Compute(man, notPlanned(ex.o))
	var records []differential.Record
	for _, s := range ex.segments {
		records = append(records, s.records...)
	}
	return &Result{Manifest: man, Stderr: redacted, Evidence: evidence, outside: outsideOf(ex.segments, ex.p.Layout), records: records,
		opening: ex.ses.Opening}
}

// failed completes a manifest for a run whose evidence could not be
// collected: what the server said over MCP is kept, behavior is not.
func (ex *execution) failed(s *segment, reason string) *Result {
	man, cs := ex.p.Manifest, ex.p.Canaries
	man.Outcome = decideOutcome(ending{failure: reason})
	offers.Fill(man, &ex.ses.Lists, cs)
	man.Phases = append(man.Phases, classify.Classify(classify.Input{Observed: offers.Hits(&ex.ses.Lists, nil, cs), Given: ex.o.CanaryEnv}).Phases...)
	m.Canonicalize(man)
	man.Coverage = coverage.Compute(man, notPlanned(ex.o))
	man.Run.DurationMS = time.Since(ex.started).Milliseconds()
	stderr := cs.Redact(s.run.Stderr())
	man.Run.StderrTail = textsafe.Tail(textsafe.Clean(stderr), 4096)
	return &Result{Manifest: man, Stderr: stderr}
}
