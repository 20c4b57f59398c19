package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
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

// failed completes a manifest for a run whose evidence could not be
// collected: what the server said over MCP is kept, behavior is not.
func failed(man *m.Manifest, started time.Time, ses session, cs *canary.Set, stderr, reason string) *Result {
	man.Outcome = m.Outcome{Status: m.StatusError, Reason: reason}
	fillServer(man, &ses, cs)
	man.Run.DurationMS = time.Since(started).Milliseconds()
	stderr = cs.Redact(stderr)
	man.Run.StderrTail = tail(stderr, 4096)
	return &Result{Manifest: man, Stderr: stderr}
}

// drive performs the handshake and the list calls. It reports whether
// initialize was answered and whether the server exited meanwhile.
func drive(ctx context.Context, o Options, startupTimeout time.Duration, c *mcpclient.Client, run *sandbox.Run, ses *session) (handshake, exited bool) {
	ictx, cancel := context.WithTimeout(ctx, startupTimeout)
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
