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
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// classifySegment parses one segment's traces and sink log and classifies
// them in its windows.
func classifySegment(ctx context.Context, s *segment, first bool, p *Prepared, ses *session, man *m.Manifest) ([]m.Phase, []classify.Evidence, m.TraceStats, error) {
	art := s.art
	for _, st := range art.Status {
		if st == "seed-failed" || strings.HasPrefix(st, "resolv.conf") || st == "install-timeout" {
			man.Run.Notes = append(man.Run.Notes, "sandbox: "+st)
		}
		if n, ok := strings.CutPrefix(st, "noise-dropped "); ok {
			man.Run.Notes = append(man.Run.Notes, "the trace left out "+textsafe.Line(n, 20)+
				" failed lookups of temporary, system and package paths past the first 20,000 (noise no rule judges; the size limit is for behavior)")
		}
	}
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
		if start, end, ok := installWindow(art.Status); ok {
			windows = append([]classify.Window{{Name: m.PhaseInstall, Start: start, End: end}}, windows...)
			windows[1].Start = end
		}
	}
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
	if slices.Contains(art.Status, "trace-pipe-failed") {
		st.Truncated = true // no trace at all: blind, not clean
		man.Run.Notes = append(man.Run.Notes, "sandbox: the trace's pipe could not be made; nothing was traced")
	}
	s.binOpened, s.oddExec = binOpened(events)
	s.oddExec = s.oddExec || st.Truncated
	sinkEvents := readSink(art, man)
	var reqs []classify.ServerRequest
	for _, r := range s.client.ServerRequests() {
		reqs = append(reqs, classify.ServerRequest{Method: r.Method, Answer: r.Answer, Time: r.Time})
	}
	seen := witness(p.Layout, art.Witness)
	seen = append(seen, watchReads(p.Layout, art.Watch, seen)...)
	out, err := classify.ClassifyContext(ctx, classify.Input{
		Layout: p.Layout, Events: events, Windows: windows, Canaries: p.Canaries,
		Resolvers: []string{resolver}, Witness: seen,
		Sink: sinkEvents, TraceTruncated: st.Truncated, ServerRequests: reqs, PlumbingRoot: root,
		Written: written(art.Written),
	})
	if err != nil {
		return nil, nil, st, err
	}
	if out.PlumbingEvents > 0 {
		man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("install phase: %d events of mcp-audit's own npm (the install shell and its direct children) left out", out.PlumbingEvents))
	}
	out.Phases = s.ch.assign(out.Phases, windows, man)
	for i := range out.Phases {
		ph := &out.Phases[i]
		ph.Canaries = append(ph.Canaries, s.mcpHits[ph.Name]...)
		if st.Truncated && ph.Name == windows[len(windows)-1].Name {
			ph.Alerts = append(ph.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
				Detail: "the trace exceeded its size or analysis limit; later behavior is missing"})
		}
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

// parseTrace reads the collected trace.
func parseTrace(ctx context.Context, file string, max int64) (*trace.Trace, error) {
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

// witness parses "atime mtime ctime path" lines; a read moves atime past
// ctime (seeding sets both together).
func witness(l classify.Layout, lines []string) []classify.WitnessRead {
	var out []classify.WitnessRead
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] == "missing" {
			continue
		}
		at, err1 := strconv.ParseFloat(f[0], 64)
		ct, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || at <= ct {
			continue
		}
		sec := int64(at)
		out = append(out, classify.WitnessRead{Path: l.Normalize(f[3]),
			Time: time.Unix(sec, int64((at-float64(sec))*1e9))})
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
