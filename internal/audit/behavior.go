package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/codecov"
	"github.com/mcp-audit/mcp-audit/internal/differ"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/trace"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// classifySegment parses one segment's traces and sink log and classifies
// them in its windows.
// extra are observations of the session (canaries in what the server
// listed) that belong to this segment.
func classifySegment(ctx context.Context, s *segment, first bool, p *Prepared, extra []classify.Observed, given []string, man *m.Manifest) ([]m.Phase, []classify.Evidence, m.TraceStats, error) {
	art := s.art
	man.Run.Notes = append(man.Run.Notes, art.Status.Notes()...)
	windows := slices.Clone(s.windows)
	var events []trace.Event
	var st m.TraceStats
	root := 0
	if first && art.InstallTraceFile != "" {
		it, err := parseTrace(ctx, art.InstallTraceFile, p.maxTrace)
		if err != nil {
			return nil, nil, st, err
		}
		events = append(events, it.Events...)
		if len(it.Events) > 0 {
			root = it.Events[0].PID // the process strace started: setpriv, then the install shell
		}
		st = addStats(st, it.Stats, len(it.Events))
		if sp := art.Status.Install; sp != nil {
			windows = append([]classify.Window{{Name: m.PhaseInstall, Start: sp.Start, End: sp.End}}, windows...)
			windows[1].Start = sp.End
		}
	}
	// A traced sandbox that ended before its entrypoint wrote a trace saw
	// nothing the server did: a cut trace says so (incomplete, never clean).
	art.TraceCut = art.TraceCut || art.TraceFile == "" && !p.Spec.NoTrace
	tr, err := parseTrace(ctx, art.TraceFile, p.maxTrace)
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
	if art.Status.TracePipeFailed {
		st.Truncated = true // no trace at all: blind, not clean
	}
	s.binOpened, s.oddExec = differ.BinOpened(events)
	s.oddExec = s.oddExec || st.Truncated
	sinkEvents := readSink(art, man)
	var reqs []classify.ServerRequest
	for _, r := range s.client.ServerRequests() {
		reqs = append(reqs, classify.ServerRequest{Method: r.Method, Answer: r.Answer, Time: r.Time})
	}
	seen := witness(p.Layout, art.Witness)
	seen = append(seen, watchReads(p.Layout, art.Watch.Reads, seen)...)
	observed, sum := s.ch.Records()
	man.Run.Notes = append(man.Run.Notes, sum.Notes()...)
	for phase, hits := range s.mcpHits {
		for _, h := range hits {
			observed = append(observed, classify.Observed{Phase: phase, Canary: &h})
		}
	}
	late := sum.Alerts()
	for _, pr := range art.Outlived {
		late = append(late, m.Alert{Kind: m.AlertDetached, Detail: pr.Comm + " was still running after the server exited"})
	}
	out, err := classify.ClassifyContext(ctx, classify.Input{
		Layout: p.Layout, Events: events, Windows: windows, Canaries: p.Canaries,
		Resolvers: []string{resolver}, Witness: seen,
		Sink: sinkEvents, TraceTruncated: st.Truncated, ServerRequests: reqs, PlumbingRoot: root,
		Written: written(art.Written), Observed: append(observed, extra...), LateAlerts: late, Given: given, AnswerNet: p.Spec.Net.AnswerNet,
		Probes: s.probes, ProbedAt: s.probedAt, Injected: variant.AddedArgs(p.Spec.Cmd),
	})
	if err != nil {
		return nil, nil, st, err
	}
	s.records = differential.Emissions(sinkEvents, append(s.ch.Texts(), s.texts...), written(art.Written), windows, p.Layout.Normalize, out.ReadBack)
	if out.PlumbingEvents > 0 {
		man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("install phase: %d events of mcp-audit's own npm (the install shell and its direct children) left out", out.PlumbingEvents))
	}
	return out.Phases, out.Evidence, st, nil
}

// readSink decodes the network sink's log; a log that could not be read or
// was cut short is a note, not a failure.
func readSink(art *sandbox.Artifacts, man *m.Manifest) []sinklog.Event {
	var events []sinklog.Event
	if art.SinkErr != nil {
		man.Run.Notes = append(man.Run.Notes, "the network sink's log could not be read: "+textsafe.Text(art.SinkErr.Error(), 200))
	}
	if art.SinkLog != nil {
		var rs sinklog.ReadStats
		events, rs = sinklog.Read(art.SinkLog, 0)
		if rs.Truncated {
			man.Run.Notes = append(man.Run.Notes, "the network sink's log reached its size limit")
		}
	}
	return events
}

// parseTrace reads the collected trace (none: no events).
func parseTrace(ctx context.Context, file string, max int64) (*trace.Trace, error) {
	if file == "" {
		return &trace.Trace{}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return trace.ParseContext(ctx, f, trace.Limits{MaxBytes: max})
}

func addStats(st m.TraceStats, t trace.Stats, events int) m.TraceStats {
	st.Bytes += t.Bytes
	st.Lines += t.Lines
	st.Events += events
	st.Malformed += t.Malformed
	st.Truncated = st.Truncated || t.Truncated
	return st
}

// sumStats adds the trace statistics of two segments.
func sumStats(a, b m.TraceStats) m.TraceStats {
	a.Bytes += b.Bytes
	a.Lines += b.Lines
	a.Events += b.Events
	a.Malformed += b.Malformed
	a.Truncated = a.Truncated || b.Truncated
	return a
}

// witness turns the decoys read after seeding into the classifier's
// reads.
func witness(l classify.Layout, times []sandbox.AccessTimes) []classify.WitnessRead {
	var out []classify.WitnessRead
	for _, a := range times {
		if a.Read() {
			out = append(out, classify.WitnessRead{Path: l.Normalize(a.Path), Time: a.Atime})
		}
	}
	return out
}

// written hands the files read back from the workspace to the classifier.
func written(ws []sandbox.WrittenFile) []classify.WrittenFile {
	out := make([]classify.WrittenFile, len(ws))
	for i, w := range ws {
		out[i] = classify.WrittenFile{Path: w.Path, ModTime: w.ModTime, Data: w.Data}
	}
	return out
}

// Bounds on what is kept of the sandbox's lists over all segments
// (hostile input).
const (
	maxOutsideExecs = 4096
	maxOutsideHome  = 64
)

// outsideOf gathers every segment's outside observations for the
// comparison of runs.
func outsideOf(segs []*segment, l classify.Layout) *differ.Outside {
	v := &differ.Outside{Home: map[string]string{}, Opened: map[string]bool{}}
	for _, s := range segs {
		for _, p := range s.binOpened {
			v.Opened[p] = true
		}
		v.OddExec = v.OddExec || s.oddExec
		if s.art == nil {
			continue
		}
		v.WatchLate = v.WatchLate || s.art.Status.WatchLate()
		v.Lost = v.Lost || s.art.Watch.Lost
		for _, ex := range s.art.Watch.Execs {
			if len(v.Execs) >= maxOutsideExecs {
				v.Lost = true
				continue
			}
			v.Execs = append(v.Execs, ex.Names)
		}
		for _, h := range s.art.HomeChanged {
			if len(v.Home) < maxOutsideHome {
				v.Home[l.Normalize(h.Path)] = strconv.FormatInt(h.Size, 10)
			}
		}
	}
	return v
}

// watchReads turns the watcher's decoy reads into reads for the
// classifier, leaving out paths the access-time witness already reports.
func watchReads(l classify.Layout, reads []sandbox.WatchRead, atime []classify.WitnessRead) []classify.WitnessRead {
	var out []classify.WitnessRead
	for _, r := range reads {
		p := l.Normalize(r.Path)
		if slices.ContainsFunc(atime, func(w classify.WitnessRead) bool { return w.Path == p }) {
			continue
		}
		out = append(out, classify.WitnessRead{Path: p, Time: r.At, Evidence: "opened or read, seen by the file watcher (no tracer)"})
	}
	return out
}

// measureCode is how much of a Node server's own code ran, from the V8
// coverage its traced run left (internal/codecov); nil when none was left
// (not measured).
func measureCode(segs []*segment, p *Prepared) *m.CodeCoverage {
	var files [][]byte
	for _, s := range segs {
		if s.art != nil {
			files = append(files, s.art.Coverage...)
		}
	}
	if len(files) == 0 || p.pkg == nil {
		return nil
	}
	return codecov.Measure(files, p.Layout.PkgRoot, codecov.Sources(filepath.Join(p.pkg.Root, filepath.FromSlash(p.pkg.Dir))))
}
