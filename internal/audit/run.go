package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sink"
)

// session is what the driver learned over MCP.
type session struct {
	handshake bool
	init      *mcpclient.InitializeResult
	tools     []json.RawMessage
	prompts   []json.RawMessage
	resources []json.RawMessage
	noise     int
	notes     []string
}

func execute(ctx context.Context, d Deps, o Options, spec sandbox.Spec, layout classify.Layout, cs *canary.Set, man *m.Manifest) (*Result, error) {
	log := d.Log
	runCtx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	sb := &sandbox.Sandbox{Engine: d.Engine, Log: log}
	started := time.Now()
	run, err := sb.Start(runCtx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrRuntime, err)
	}
	defer run.Remove()
	log.Debug("sandbox running", "ms", time.Since(started).Milliseconds())
	man.Run.ContainerID = run.ID
	man.Run.StartedAt = run.Started.UTC().Format(time.RFC3339Nano)

	client := mcpclient.New(run.Stdout, run, mcpclient.Options{Roots: []string{"file://" + Workspace}})
	defer client.Close()

	var ses session
	tStart := run.Started
	exitedEarly := false
	ses.handshake, exitedEarly = drive(runCtx, o, client, run, &ses)
	tStartupEnd := time.Now()
	log.Debug("startup done", "handshake", ses.handshake, "exited", exitedEarly, "ms", tStartupEnd.Sub(tStart).Milliseconds())

	if ses.handshake && !exitedEarly {
		exitedEarly = waitIdle(runCtx, o, run)
	}
	tIdleEnd := time.Now()
	deadlineHit := runCtx.Err() != nil && ctx.Err() == nil
	if err := run.Stop(context.WithoutCancel(ctx), 2*time.Second); err != nil {
		log.Warn("stopping sandbox", "err", err)
	}
	log.Debug("sandbox stopped", "ms", time.Since(started).Milliseconds())
	ses.noise = client.Noise()
	if ctx.Err() != nil {
		return nil, ctx.Err() // interrupted: the deferred Remove cleans up
	}
	collectCtx, cancelCollect := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancelCollect()
	state, _ := run.State(collectCtx)
	art, err := run.Collect(collectCtx, o.MaxTraceBytes)
	if art != nil && art.TraceFile != "" {
		defer os.Remove(art.TraceFile)
	}
	if err != nil {
		return failed(man, started, ses, cs, run, "collecting results from the sandbox failed"), fmt.Errorf("%w: %v", ErrRuntime, err)
	}
	if o.KeepTrace != "" && art.TraceFile != "" {
		if err := copyFile(art.TraceFile, o.KeepTrace); err != nil {
			log.Warn("saving raw trace", "err", err)
		}
	}

	log.Debug("collected", "ms", time.Since(started).Milliseconds())
	// Outcome.
	rc, hasRC := exitStatus(art.Status)
	switch {
	case deadlineHit:
		man.Outcome = m.Outcome{Status: m.StatusKilled, Reason: "the audit deadline was reached"}
	case state.OOMKilled:
		man.Outcome = m.Outcome{Status: m.StatusKilled, Reason: "the memory limit was reached"}
	case exitedEarly:
		man.Outcome = m.Outcome{Status: m.StatusCrashed, Reason: "the server exited on its own"}
		if !ses.handshake {
			man.Outcome.Reason = "the server exited before answering initialize"
		}
		if hasRC {
			man.Outcome.ExitCode = &rc
		}
	case !ses.handshake:
		man.Outcome = m.Outcome{Status: m.StatusNoHandshake, Reason: "initialize was not answered within " + o.StartupTimeout.String()}
	default:
		man.Outcome = m.Outcome{Status: m.StatusOK}
	}
	for _, s := range art.Status {
		if s == "seed-failed" || strings.HasPrefix(s, "resolv.conf") {
			man.Run.Notes = append(man.Run.Notes, "sandbox setup: "+s)
		}
	}

	// Behavior.
	tr, err := parseTrace(art.TraceFile, o.MaxTraceBytes)
	if err != nil {
		return failed(man, started, ses, cs, run, "reading the trace failed"), fmt.Errorf("%w: reading trace: %v", ErrRuntime, err)
	}
	var sinkEvents []sink.Event
	if art.SinkErr != nil {
		man.Run.Notes = append(man.Run.Notes, "the network sink's log could not be read: "+sanitize(art.SinkErr.Error(), 200))
	}
	if art.SinkLog != nil {
		var st sink.ReadStats
		sinkEvents, st = sink.Read(art.SinkLog, 0)
		if st.Truncated {
			man.Run.Notes = append(man.Run.Notes, "the network sink's log reached its size limit")
		}
	}
	windows := []classify.Window{
		{Name: m.PhaseStartup, Start: tStart, End: tStartupEnd},
		{Name: m.PhaseIdle, Start: tStartupEnd, End: tIdleEnd},
	}
	out := classify.Classify(classify.Input{
		Layout: layout, Events: tr.Events, Windows: windows, Canaries: cs,
		Resolvers: []string{resolver}, Witness: witness(layout, art.Witness),
		Sink: sinkEvents, TraceTruncated: tr.Stats.Truncated || art.TraceCut,
	})
	man.Phases = out.Phases
	if tr.Stats.Truncated || art.TraceCut {
		for i := range man.Phases {
			if man.Phases[i].Name == m.PhaseIdle {
				man.Phases[i].Alerts = append(man.Phases[i].Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
					Detail: "the trace exceeded its size limit; later behavior is missing"})
			}
		}
	}
	fillServer(man, &ses, cs)

	man.Run.DurationMS = time.Since(started).Milliseconds()
	man.Run.PhaseTimingMS = []m.PhaseTiming{
		{Phase: m.PhaseStartup, MS: tStartupEnd.Sub(tStart).Milliseconds()},
		{Phase: m.PhaseIdle, MS: tIdleEnd.Sub(tStartupEnd).Milliseconds()},
	}
	man.Run.Trace = m.TraceStats{Bytes: tr.Stats.Bytes, Lines: tr.Stats.Lines, Events: len(tr.Events),
		Malformed: tr.Stats.Malformed, Truncated: tr.Stats.Truncated || art.TraceCut}
	stderr := cs.Redact(run.Stderr())
	man.Run.StderrTail = tail(stderr, 4096)
	man.Run.StdoutNoise = ses.noise
	man.Run.Notes = append(man.Run.Notes, ses.notes...)
	return &Result{Manifest: man, Stderr: stderr, Evidence: out.Evidence}, nil
}

// failed completes a manifest for a run whose evidence could not be
// collected: what the server said over MCP is kept, behavior is not.
func failed(man *m.Manifest, started time.Time, ses session, cs *canary.Set, run *sandbox.Run, reason string) *Result {
	man.Outcome = m.Outcome{Status: m.StatusError, Reason: reason}
	fillServer(man, &ses, cs)
	man.Run.DurationMS = time.Since(started).Milliseconds()
	stderr := cs.Redact(run.Stderr())
	man.Run.StderrTail = tail(stderr, 4096)
	return &Result{Manifest: man, Stderr: stderr}
}

// drive performs the handshake and the list calls. It reports whether
// initialize was answered and whether the server exited meanwhile.
func drive(ctx context.Context, o Options, c *mcpclient.Client, run *sandbox.Run, ses *session) (handshake, exited bool) {
	ictx, cancel := context.WithTimeout(ctx, o.StartupTimeout)
	type initRes struct {
		r   *mcpclient.InitializeResult
		err error
	}
	ch := make(chan initRes, 1)
	go func() {
		r, err := c.Initialize(ictx)
		ch <- initRes{r, err}
	}()
	var res initRes
	select {
	case res = <-ch:
	case <-run.Done():
		cancel()
		return false, true
	}
	cancel()
	if res.err != nil {
		var rpc *mcpclient.RPCError
		if errors.As(res.err, &rpc) {
			ses.notes = append(ses.notes, "initialize returned an error: "+sanitize(rpc.Message, 200))
		}
		select {
		case <-run.Done():
			return false, true
		case <-time.After(200 * time.Millisecond):
		}
		if errors.Is(res.err, mcpclient.ErrClosed) {
			// Output closed but the container is still winding down.
			<-waitOrTimeout(run.Done(), 3*time.Second)
			return false, isDone(run.Done())
		}
		return false, false
	}
	ses.init = res.r
	list := func(method, key string) []json.RawMessage {
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		defer cancel()
		items, err := c.List(cctx, method, key)
		if err != nil {
			ses.notes = append(ses.notes, method+" failed: "+sanitize(errText(err), 200))
		}
		return items
	}
	ses.tools = list("tools/list", "tools")
	if res.r.Has("prompts") {
		ses.prompts = list("prompts/list", "prompts")
	}
	if res.r.Has("resources") {
		ses.resources = list("resources/list", "resources")
	}
	return true, isDone(run.Done())
}

func errText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	return err.Error()
}

func waitOrTimeout(done <-chan struct{}, d time.Duration) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
		}
		close(out)
	}()
	return out
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitIdle returns when the trace has not grown for IdleQuiet (and at least
// IdleMin has passed), at IdleMax, or when the server exits (true).
func waitIdle(ctx context.Context, o Options, run *sandbox.Run) bool {
	start := time.Now()
	var last int64 = -1
	lastChange := start
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-run.Done():
			return true
		case <-ctx.Done():
			return false
		case now := <-tick.C:
			size, err := run.TraceSize(ctx)
			if err == nil && size != last {
				last, lastChange = size, now
			}
			elapsed := now.Sub(start)
			if elapsed >= o.IdleMax || elapsed >= o.IdleMin && now.Sub(lastChange) >= o.IdleQuiet {
				return false
			}
		}
	}
}

// exitStatus reads "exit RC T" from the entrypoint's notes.
func exitStatus(status []string) (int, bool) {
	for _, s := range status {
		f := strings.Fields(s)
		if len(f) >= 2 && f[0] == "exit" {
			if rc, err := strconv.Atoi(f[1]); err == nil {
				return rc, true
			}
		}
	}
	return 0, false
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

// Bounds on what the server can put into the manifest through MCP.
const (
	maxTools       = 500
	maxDescription = 16 << 10
	maxSchema      = 64 << 10
	maxName        = 256
)

// fillServer records what the server offered over MCP. Canary values in
// anything the server said are a finding (phase startup, how "mcp-output")
// and are redacted, so the manifest never carries a secret.
func fillServer(man *m.Manifest, ses *session, cs *canary.Set) {
	finder := canary.NewFinder(cs.All())
	var hits []m.CanaryHit
	scan := func(what string, raw []json.RawMessage) {
		for _, r := range raw {
			for _, h := range finder.Find(r) {
				hits = append(hits, m.CanaryHit{Canary: h.Canary, How: "mcp-output", Evidence: what, Encoding: h.Encoding})
			}
		}
	}
	scan("tools/list", ses.tools)
	scan("prompts/list", ses.prompts)
	scan("resources/list", ses.resources)
	if ses.init != nil {
		b, _ := json.Marshal(ses.init)
		scan("initialize", []json.RawMessage{b})
	}
	redact := func(s string) string { return cs.Redact(s) }
	defer func() {
		if len(hits) == 0 {
			return
		}
		for i := range man.Phases {
			if man.Phases[i].Name == m.PhaseStartup {
				man.Phases[i].Canaries = append(man.Phases[i].Canaries, hits...)
				return
			}
		}
		man.Phases = append(man.Phases, m.Phase{Name: m.PhaseStartup, Canaries: hits})
	}()
	sanitize := func(s string, max int) string { return sanitize(redact(s), max) }
	man.Server.Capabilities = []string{}
	if ses.init != nil {
		man.Server.Name = sanitize(ses.init.ServerInfo.Name, maxName)
		man.Server.Version = sanitize(ses.init.ServerInfo.Version, maxName)
		man.Server.ProtocolVersion = sanitize(ses.init.ProtocolVersion, 64)
		man.Server.Instructions = sanitize(ses.init.Instructions, maxDescription)
		for _, c := range ses.init.CapabilityNames() {
			man.Server.Capabilities = append(man.Server.Capabilities, sanitize(c, 64))
		}
	}
	for i, raw := range ses.tools {
		if i == maxTools {
			man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("only the first %d of %d tools are recorded", maxTools, len(ses.tools)))
			break
		}
		var t struct {
			Name        string          `json:"name"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			man.Run.Notes = append(man.Run.Notes, "a tools/list entry is not an object")
			continue
		}
		schema := m.CanonicalJSON(json.RawMessage(redact(string(t.InputSchema))))
		if len(schema) > maxSchema {
			schema = json.RawMessage(`{"$comment":"mcp-audit: schema larger than 64 KiB, see digest"}`)
		}
		tool := m.Tool{Name: sanitize(t.Name, maxName), Title: sanitize(t.Title, maxName),
			Description: sanitize(t.Description, maxDescription), InputSchema: schema}
		tool.Digest = m.ToolDigest(tool)
		man.Tools = append(man.Tools, tool)
	}
	for _, raw := range ses.prompts {
		var p struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Arguments   []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		pr := m.Prompt{Name: sanitize(p.Name, maxName), Description: sanitize(p.Description, maxDescription)}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, sanitize(a.Name, maxName))
		}
		man.Prompts = append(man.Prompts, pr)
	}
	for _, raw := range ses.resources {
		var r struct {
			URI      string `json:"uri"`
			Name     string `json:"name"`
			MimeType string `json:"mimeType"`
		}
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		man.Resources = append(man.Resources, m.Resource{URI: sanitize(r.URI, 2048), Name: sanitize(r.Name, maxName), MimeType: sanitize(r.MimeType, 128)})
	}
}

// sanitize bounds untrusted text and removes control characters (keeping
// newlines and tabs), so it cannot corrupt terminals or reports.
func sanitize(s string, max int) string {
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return sandbox.Sanitize(s)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "…" + s[cut:]
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
