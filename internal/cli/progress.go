package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// plainEvery is how often a plain progress line repeats a calls phase that
// is still going (CI logs get a line per phase, and one every so often in
// between, not one per call).
const plainEvery = 10 * time.Second

// progress prints where audits are on stderr: a live line redrawn in
// place on a terminal, plain lines elsewhere (CI logs). A nil *progress
// prints nothing (-q).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	width   int
	start   time.Time
	now     func() time.Time
	running map[string]audit.Step
	order   []string
	said    map[string]time.Time // when a target's last plain line was printed
	drawn   bool
}

func newProgress(env *Env, quiet bool) *progress {
	if quiet {
		return nil
	}
	return &progress{w: env.Stderr, live: env.StderrIsTerminal && env.Getenv("TERM") != "dumb", width: 100,
		start: time.Now(), now: time.Now, running: map[string]audit.Step{}, said: map[string]time.Time{}}
}

// hook is the audit.Options.Progress of an audit under this progress.
func (p *progress) hook() func(audit.Step) {
	if p == nil {
		return nil
	}
	return p.step
}

func (p *progress) step(s audit.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.Target = textsafe.Line(s.Target, 80)
	if s.Phase == audit.StepDone {
		p.finish(s.Target)
		return
	}
	prev, seen := p.running[s.Target]
	if !seen {
		p.order = append(p.order, s.Target)
	}
	p.running[s.Target] = s
	if p.live {
		p.redraw()
		return
	}
	now := p.now()
	if !seen || prev.Phase != s.Phase || now.Sub(p.said[s.Target]) >= plainEvery {
		p.said[s.Target] = now
		fmt.Fprintf(p.w, "mcp-audit: [%s] %s: %s\n", p.elapsed(), s.Target, describe(s))
	}
}

// finish removes a target from the live line, once its audit is over.
func (p *progress) finish(target string) {
	delete(p.running, target)
	p.order = slices.DeleteFunc(p.order, func(t string) bool { return t == target })
	if p.live {
		p.redraw()
	}
}

// Write prints lines (batch's one line per finished server) above the
// live line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	n, err := p.w.Write(b)
	if p.live && len(p.order) > 0 {
		p.redraw()
	}
	return n, err
}

// done clears the live line, so what follows starts on a clean line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// redraw rewrites the live line: elapsed time and each running audit.
func (p *progress) redraw() {
	parts := make([]string, 0, len(p.order))
	for _, t := range p.order {
		parts = append(parts, t+": "+describe(p.running[t]))
	}
	line := "[" + p.elapsed() + "] " + strings.Join(parts, " · ")
	fmt.Fprint(p.w, "\r\x1b[K"+textsafe.Clip(line, p.width))
	p.drawn = true
}

func (p *progress) elapsed() string {
	return p.now().Sub(p.start).Round(time.Second).String()
}

func describe(s audit.Step) string {
	if s.Phase == audit.StepCalls && s.Total > 0 {
		return fmt.Sprintf("calls %d/%d", s.Done, s.Total)
	}
	return s.Phase
}
