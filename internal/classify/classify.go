// Package classify turns parsed trace events into the behavior sections of a
// manifest: per phase, which files were touched and how (normalized and put
// in categories), which processes ran, which network endpoints and names
// were used, whether canaries were touched, and which anti-analysis or
// escape attempts were made.
//
// It is pure: the same events and layout always give the same result.
//
// Each behavior kind has its own file: files.go, processes.go, network.go
// (what the trace shows) and sink.go (what the network sink saw), canaries.go
// and alerts.go; classify.go wires them together.
package classify

import (
	"context"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// Window is one phase of the run in wall-clock time (the sandbox and the
// host share CLOCK_REALTIME). Events before the first window belong to the
// first, events after the last to the last.
type Window struct {
	Name       string
	Start, End time.Time
	// Answered is when the client received the answer to the window's
	// call (zero outside calls, or without an answer). Network entries
	// from then on are marked after_answer: the call did not need them.
	Answered time.Time
}

// WitnessRead is a canary file whose access time changed during the run:
// an independent witness that does not rely on the tracer.
type WitnessRead struct {
	Path string // "~/.aws/credentials"
	Time time.Time
	// Evidence says how it was seen; empty for the access-time check.
	Evidence string
}

// WrittenFile is a file the server changed in the workspace, read back
// after the run to search it for canary values.
type WrittenFile struct {
	Path    string // absolute, inside the sandbox
	ModTime time.Time
	Data    []byte
}

// Input is everything the classifier needs.
type Input struct {
	Layout   Layout
	Events   []trace.Event
	Windows  []Window
	Canaries *canary.Set
	// Resolvers are the DNS servers configured in the sandbox.
	Resolvers []string
	Witness   []WitnessRead
	// Sink is the network sink's log, when a sink ran.
	Sink []sinklog.Event
	// TraceTruncated suppresses alerts that assume a complete trace, and
	// adds a trace-incomplete alert to the last window's phase.
	TraceTruncated bool
	// ServerRequests are requests the server made of the client.
	ServerRequests []ServerRequest
	// Written are the workspace's files changed during the run.
	Written []WrittenFile
	// AnswerNet is the range the run's sinkhole answered names from
	// (default sinklog.FakeNet): addresses in it are made up.
	AnswerNet string
	// Observed are what the server said outside the trace (observed.go).
	Observed []Observed
	// LateAlerts are added to the last window's phase: what went wrong
	// after the run's behavior could be attributed (the observer's bytes
	// past its search bound).
	LateAlerts []m.Alert
	// Given are the canary variables that stand in for credentials the
	// server was given (--canary-env): their hits are marked Given.
	Given []string
	// PlumbingRoot is the pid the install phase's tracer started (setpriv,
	// then the install shell, in one process), 0 without an install phase.
	// It and its direct children (npm) are mcp-audit's own plumbing, known
	// by ancestry alone: a program's name or argv never makes it plumbing,
	// so package code (a lifecycle script's shell and everything it starts,
	// two or more generations down) cannot hide by posing as npm.
	PlumbingRoot int
	// Injected are arguments mcp-audit itself added to the server's command
	// line (the traced runs' node --random-seed=N): the argv the manifest
	// lists leaves them out wherever they appear (node hands its flags on to
	// the processes it forks), so a version's seed never shows as behavior.
	Injected []string
	// Probes are what the listening sockets answered the audit's probe
	// after the calls (probes.go), made at ProbedAt.
	Probes   []sinklog.Probe
	ProbedAt time.Time
}

// ServerRequest is a request from the server, with when it arrived.
type ServerRequest struct {
	Method, Answer string
	Time           time.Time
}

// Output is the classified behavior of a run.
type Output struct {
	Phases []m.Phase
	// Evidence holds full network exchanges for the evidence file.
	Evidence []Evidence
	// PlumbingEvents counts the install plumbing's events left out.
	PlumbingEvents int
	// ReadBack says, of the files read back after the run, which are the
	// server's output and where (differential.Emissions).
	ReadBack ReadBack
}

// ReadBack describes the files read back after the run, by normalized
// path.
type ReadBack struct {
	// Kept are no output of the server's: the files in a workspace
	// repository's .git that only git's own processes wrote (see
	// imageGit: the repository keeping its work tree), and planted files
	// that end as planted (git freshens an object it already has by
	// touching it, which puts it among the changed files).
	Kept map[string]bool
	// Phase is the phase whose trace last wrote the file: a file's
	// modification time has a second's precision in the archive, so a
	// write early in a call's second falls in the call before.
	Phase map[string]string
}

// Limits on what one phase may list, so a hostile server cannot make the
// manifest arbitrarily large. What is dropped is counted in an alert.
const (
	maxFilesPerPhase = 2000
	// maxNoteworthyPerPhase bounds entries that may carry a finding.
	maxNoteworthyPerPhase = 20000
	maxProcsPerPhase      = 500
	maxArgs               = 64
	maxArgLen             = 256
)

type phaseAcc struct {
	m.Phase
	files    map[m.FileAccess]bool
	summary  map[m.FileCount]map[string]bool
	overflow map[m.FileCount]int
	dropped  int
	answered time.Time
}

type classifier struct {
	in       Input
	phases   []*phaseAcc
	finder   *canary.Finder
	canaryAt map[string]string // absolute decoy path -> canary name
	aliases  map[string]string // path -> path it stands for (symlink, rename, hard link)
	fds      map[int]map[int]*sockInfo
	pids     map[int]bool
	readCan  map[string]bool   // canary names read according to the trace
	names    map[string]string // address -> name, from the sink's DNS answers
	procs    map[int]string    // pid -> program (normalized argv)
	tcp      []*traceConn
	udpSends []udpSend
	evidence []Evidence
	plumb    map[int]bool // pids running mcp-audit's own plumbing
	// lifecycle are the plumbing's children that have not run a program
	// yet: the first they run is a lifecycle script's shell.
	lifecycle map[int]bool
	// seeded are the files that existed before the run, and what became
	// of them (destroyed.go).
	seeded  map[string]*seededFile
	browser map[int]bool         // pids running the image's Chromium (browser.go)
	git     map[int]bool         // pids running the image's git for a command that sets no configuration (gitown.go)
	cwd     map[int]*cwdRec      // pid -> working directory, as far as the trace shows it (cwd.go)
	writers map[string]*phaseAcc // normalized path -> the last phase that wrote it (phaseWriting)
	// gitWrote: files in a repository's .git, true while only git's own
	// processes wrote them; gitConfigSafe: repository configs read back
	// naming no program; decoyIntact: workspace decoys that end as
	// planted (gitown.go).
	gitWrote, gitConfigSafe, decoyIntact map[string]bool
	held                                 []*heldBind // UDP binds judged when their socket connects (udpbind.go)
	// joins are the DNS names asked per registrable domain; streams the
	// connections and sockets followed across their pieces.
	joins       map[string]*dnsJoin
	streams     map[string]*byteStream
	streamOrder []string
	plumbed     int // their events, left out of the phases
	// install are the install phase's file operations in order
	// (erasures.go).
	install installEvents
}

// Classify builds the behavior phases for a run.
func Classify(in Input) Output {
	out, _ := ClassifyContext(context.Background(), in)
	return out
}

// ClassifyContext is Classify that stops when ctx ends: a hostile trace
// must not keep an interrupted audit busy.
func ClassifyContext(ctx context.Context, in Input) (Output, error) {
	c := newClassifier(in)
	for _, ev := range in.Events {
		c.pids[ev.PID] = true
	}
	c.namesFromSink()
	for i, ev := range in.Events {
		if i%1024 == 0 && ctx.Err() != nil {
			return Output{}, ctx.Err()
		}
		c.event(trace.Interpret(ev))
	}
	c.flushBinds()
	c.mergeSink()
	c.witness()
	c.written()
	c.destroyed()
	c.probes()
	c.erasures()
	for _, r := range in.ServerRequests {
		p := c.phaseAt(r.Time)
		p.ServerRequests = append(p.ServerRequests, m.ServerRequest{Method: r.Method, Answer: r.Answer})
	}
	c.place()
	out := make([]m.Phase, 0, len(c.phases))
	for _, p := range c.phases {
		out = append(out, p.finish())
	}
	tmp := m.Manifest{Phases: out}
	m.Canonicalize(&tmp)
	return Output{Phases: tmp.Phases, Evidence: c.evidence, PlumbingEvents: c.plumbed, ReadBack: c.readBack()}, nil
}

func newClassifier(in Input) *classifier {
	c := &classifier{
		in:            in,
		canaryAt:      map[string]string{},
		aliases:       map[string]string{},
		fds:           map[int]map[int]*sockInfo{},
		pids:          map[int]bool{},
		readCan:       map[string]bool{},
		names:         map[string]string{},
		procs:         map[int]string{},
		plumb:         map[int]bool{},
		lifecycle:     map[int]bool{},
		joins:         map[string]*dnsJoin{},
		streams:       map[string]*byteStream{},
		browser:       map[int]bool{},
		git:           map[int]bool{},
		gitWrote:      map[string]bool{},
		cwd:           map[int]*cwdRec{},
		gitConfigSafe: map[string]bool{},
		decoyIntact:   map[string]bool{},
	}
	c.placeCanaries()
	c.gitReadBack()
	c.seed()
	windows := in.Windows
	if len(windows) == 0 {
		windows = []Window{{Name: m.PhaseStartup}}
	}
	for _, w := range windows {
		c.phases = append(c.phases, newPhaseAcc(w.Name, w.Answered))
	}
	return c
}

func newPhaseAcc(name string, answered time.Time) *phaseAcc {
	return &phaseAcc{
		Phase:    m.Phase{Name: name},
		files:    map[m.FileAccess]bool{},
		summary:  map[m.FileCount]map[string]bool{},
		overflow: map[m.FileCount]int{},
		answered: answered,
	}
}

func (c *classifier) phaseAt(t time.Time) *phaseAcc {
	ws := c.in.Windows
	for i := len(ws) - 1; i >= 0; i-- {
		if !t.Before(ws[i].Start) {
			return c.phases[i]
		}
	}
	return c.phases[0]
}

// afterAnswer reports whether t falls in a call window after the client
// had the call's answer.
func (p *phaseAcc) afterAnswer(t time.Time) bool {
	return !p.answered.IsZero() && !t.Before(p.answered)
}

func (c *classifier) event(r trace.Record) {
	p := c.phaseAt(r.Time)
	if c.plumb[r.PID] && p.Name == m.PhaseInstall && r.Kind != trace.KindProcess {
		c.plumbed++ // mcp-audit's own plumbing (npm in the install phase): counted, not listed
		return
	}
	resolved := c.inCwd(r) // against the directory before the call (a chdir's own path too)
	c.learnCwd(r)
	switch r.Kind {
	case trace.KindFile:
		c.file(p, resolved)
	case trace.KindExec:
		c.exec(p, r)
	case trace.KindSocket:
		c.socket(r)
	case trace.KindNet:
		c.net(p, r)
	case trace.KindProcess:
		c.process(p, r)
	case trace.KindAlert:
		c.alert(p, r)
	}
}

// result is the outcome of a file or exec call in manifest terms.
func result(r trace.Record) string {
	switch {
	case r.Incomplete || !r.RetKnown && !r.Failed():
		return m.ResultError
	case !r.Failed():
		return m.ResultOK
	case r.Op == "readlink" && r.Errno == "EINVAL":
		return m.ResultOK // exists and is not a symlink: realpath() plumbing
	case r.Errno == "ENOENT" || r.Errno == "ENOTDIR" || r.Errno == "ELOOP":
		return m.ResultMissing
	case r.Errno == "EACCES" || r.Errno == "EPERM" || r.Errno == "EROFS":
		return m.ResultDenied
	}
	return m.ResultError
}

func (p *phaseAcc) finish() m.Phase {
	out := p.Phase
	for fa := range p.files {
		out.Files = append(out.Files, fa)
	}
	for k, paths := range p.summary {
		k.Paths = len(paths) + p.overflow[k]
		out.FileSummary = append(out.FileSummary, k)
	}
	if p.dropped > 0 {
		out.Alerts = append(out.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
			Detail: "more entries than the manifest lists per phase; the rest are in the raw trace"})
	}
	return out
}
