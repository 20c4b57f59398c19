// Package observe watches everything an MCP server says besides the
// results the audit asked for — requests to the client, notifications,
// error answers, stderr, stdout lines that are not JSON-RPC, oversized
// messages — and the results themselves for text aimed at the model. Each
// is searched for canaries as it arrives, before anything is redacted or
// cut, and kept for judging when the policy's injection detector sees
// signs in it. The observer is bounded in bytes, records and CPU time on
// the host (a server can print without end), and runs its searching off
// the protocol path so that a flood cannot turn calls into timeouts. It
// hands the audit timestamped records (Records), which classify places in
// the run's phases.
package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds on what the channels keep.
const (
	maxObserved    = 2000     // distinct records per segment
	maxMessageText = 2 << 10  // bytes of text per kept message
	maxScanText    = 64 << 10 // bytes of a stream line searched at once; the chunk judged at once
	maxJudgedText  = 8 << 20  // bytes of text judged per message or result
	judgeOverlap   = 1 << 10  // bytes shared by judged chunks (a phrase across a boundary)
	maxJudged      = 32 << 20 // bytes of text judged per channel and segment
)

// maxJudgeTime bounds the time spent judging one channel's text per
// segment. Ordinary text costs little (the rules' needed words are
// missing); text dense with them costs about 1.5 s per MiB, so a flood
// made of them stops here and is reported as unjudged rather than holding
// the host's CPU. Each line of a stream is judged on its own (about 80 µs
// for a short one, 450 µs under the race detector), so the bound is wide:
// at 3 s a server printing 5,000 progress lines on a loaded machine was
// cut on one run and not the next, and identical behavior gave two
// manifests. A variable so tests can lower it.
var maxJudgeTime = 30 * time.Second

// Observer watches what one server process says (one per sandbox
// container). Its text is kept when it is worth judging: always for
// sampling and elicitation requests, otherwise when it looks aimed at the
// model (the policy's injection detector) or is too large to read.
// Records carry their arrival time.
type Observer struct {
	cs     *canary.Set
	finder *canary.Finder
	mu     sync.Mutex
	recs   []observed
	seen   map[string]bool
	// streams search stderr and stdout's non-JSON lines across line
	// breaks (a value printed in pieces), beside each line on its own.
	smu     sync.Mutex
	streams map[string]*canary.Stream
	// dropped counts records beyond maxObserved.
	dropped int
	// judged counts the bytes of text judged so far per channel; cut
	// records the channels where some text was left unjudged.
	judged map[string]int
	cut    map[string]bool
	// spent is the time spent judging per channel (maxJudgeTime).
	spent map[string]time.Duration
	// texts are what it said, raw, for the comparison of runs.
	texts []differential.Text
	// listChanged is set when the server sends notifications/*/list_changed
	// and cleared when the audit lists again (a client refreshes at once).
	listChanged atomic.Bool
	errw        lineWriter

	// Searching and judging run on their own goroutine, off the protocol's
	// path: a server that floods stdout or stderr must not turn its own
	// calls into timeouts (arrival times are taken before queueing, so
	// attribution to calls is unchanged).
	queue    chan func()
	done     chan struct{}
	qmu      sync.Mutex
	closed   bool
	drainOne sync.Once
	// queued bounds the bytes waiting (backpressure on the reader);
	// searched bounds the bytes searched per segment: past it the rest is
	// counted, and reported as a high trace_incomplete alert.
	bmu        sync.Mutex
	bcond      *sync.Cond
	queued     int64
	searched   int64
	unsearched int64
}

// queueLen bounds the items waiting: past it the reader waits for the
// searcher (nothing is dropped below maxSearched).
const queueLen = 8192

// Byte bounds of what the server says outside its answers: waiting to be
// searched, and searched per segment (a server printing 8 MiB lines at
// full speed would otherwise queue gigabytes on the host).
const maxQueuedBytes = 64 << 20

// maxSearched is a variable so tests can lower it.
var maxSearched int64 = 512 << 20

// enqueueSized runs fn on the searching goroutine (or right here once the
// segment has been drained) for n bytes of server output, waiting while
// too many bytes wait; past maxSearched per segment the bytes are counted,
// not searched.
func (ch *Observer) enqueueSized(n int64, fn func()) {
	ch.bmu.Lock()
	if ch.searched+n > maxSearched {
		ch.unsearched += n
		ch.bmu.Unlock()
		return
	}
	ch.searched += n
	for ch.queued > maxQueuedBytes {
		ch.bcond.Wait()
	}
	ch.queued += n
	ch.bmu.Unlock()
	inner := fn
	fn = func() {
		inner()
		ch.bmu.Lock()
		ch.queued -= n
		ch.bcond.Broadcast()
		ch.bmu.Unlock()
	}
	ch.qmu.Lock()
	if ch.closed {
		ch.qmu.Unlock()
		fn()
		return
	}
	ch.queue <- fn // under qmu: drain cannot close the queue under a sender
	ch.qmu.Unlock()
}

// drain waits until everything queued has been searched and judged.
func (ch *Observer) drain() {
	ch.drainOne.Do(func() {
		ch.qmu.Lock()
		ch.closed = true
		close(ch.queue)
		ch.qmu.Unlock()
		<-ch.done
	})
}

type observed struct {
	t   time.Time
	hit *m.CanaryHit
	msg *m.ServerMessage
}

// New starts an observer that searches for the canaries of cs. Records
// drains it.
func New(cs *canary.Set) *Observer {
	ch := &Observer{cs: cs, finder: canary.NewFinder(cs.All()), seen: map[string]bool{}, streams: map[string]*canary.Stream{},
		judged: map[string]int{}, cut: map[string]bool{}, spent: map[string]time.Duration{},
		queue: make(chan func(), queueLen), done: make(chan struct{})}
	ch.bcond = sync.NewCond(&ch.bmu)
	ch.errw.fn = ch.stderr
	go func() {
		defer close(ch.done)
		for fn := range ch.queue {
			fn()
		}
	}()
	return ch
}

// lineWriter splits a stream into lines for fn. A line longer than
// maxScanText is passed on in chunks that overlap by 512 bytes, so a value
// across a chunk boundary is still found whole.
type lineWriter struct {
	mu  sync.Mutex
	buf []byte
	fn  func([]byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.fn(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxScanText {
		w.fn(w.buf)
		w.buf = w.buf[len(w.buf)-512:]
	}
	w.buf = append([]byte(nil), w.buf...)
	return len(p), nil
}

// Close passes on what is left after the last newline.
func (w *lineWriter) Close() error {
	w.flush()
	return nil
}

// flush passes on what is left after the last newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.fn(w.buf)
		w.buf = nil
	}
}

// channelHow maps a client channel to how a canary found there is named.
var channelHow = map[string]string{
	mcpclient.ChanRequest:      m.HowServerRequest,
	mcpclient.ChanNotification: m.HowNotification,
	mcpclient.ChanError:        m.HowMCPOutput,
	mcpclient.ChanStdout:       m.HowStdout,
	mcpclient.ChanOversized:    m.HowMCPOutput,
	mcpclient.ChanTask:         m.HowMCPOutput,
	mcpclient.ChanState:        m.HowMCPOutput,
	mcpclient.ChanTransport:    m.HowMCPOutput,
}

// channelName maps a client channel to the manifest's word for it.
var channelName = map[string]string{
	mcpclient.ChanRequest:      m.ChannelRequest,
	mcpclient.ChanNotification: m.ChannelNotification,
	mcpclient.ChanError:        m.ChannelError,
	mcpclient.ChanStdout:       m.ChannelStdout,
	mcpclient.ChanOversized:    m.ChannelOversized,
	mcpclient.ChanTask:         m.ChannelTask,
	mcpclient.ChanState:        m.ChannelState,
	mcpclient.ChanTransport:    m.ChannelTransport,
}

var reMethod = regexp.MustCompile(`"method"\s*:\s*"([^"\\]{1,100})"`)

// Observe queues one observation of the MCP client, stamped now: it is
// the client's Options.Observe.
func (ch *Observer) Observe(o mcpclient.Observation) {
	now := time.Now()
	if o.Channel == mcpclient.ChanNotification && strings.HasSuffix(o.Method, "/list_changed") {
		ch.listChanged.Store(true)
	}
	o.Data = bytes.Clone(o.Data)
	ch.enqueueSized(int64(len(o.Data)), func() { ch.process(now, o) })
}

// process searches and judges one observation.
func (ch *Observer) process(now time.Time, o mcpclient.Observation) {
	channel, method := channelName[o.Channel], o.Method
	if o.Channel == mcpclient.ChanOversized {
		if mm := reMethod.FindSubmatch(o.Data); mm != nil {
			method = string(mm[1])
		}
	}
	method = textsafe.Line(method, 100)
	ch.text(now, channel+" "+method, o.Data)
	what := channel
	if method != "" {
		what += " " + method
	}
	if o.Channel == mcpclient.ChanError {
		what = "error answer"
		if method != "" {
			what += " to " + method
		}
	}
	if o.Channel == mcpclient.ChanOversized {
		what = fmt.Sprintf("oversized message (%d MiB; head and tail searched)", o.Size>>20)
		if method != "" {
			what += " " + method
		}
		ch.keep(now, m.ServerMessage{Channel: channel, Method: method, Text: policy.OversizedText})
	}
	ch.hits(now, o.Data, channelHow[o.Channel], what)
	if o.Channel == mcpclient.ChanStdout {
		ch.streamHits(now, o.Data, m.HowStdout, what)
	}
	text := o.Data
	if o.Channel != mcpclient.ChanStdout {
		text = []byte(jsonText(o.Data))
	}
	always := o.Channel == mcpclient.ChanRequest && (o.Method == "sampling/createMessage" || o.Method == "elicitation/create")
	ch.judge(now, channel, method, string(text), always)
}

// stderr queues one line (or chunk of a long line) of standard error.
func (ch *Observer) stderr(line []byte) {
	now := time.Now()
	line = bytes.Clone(line)
	ch.enqueueSized(int64(len(line)), func() {
		ch.text(now, m.ChannelStderr, line)
		ch.hits(now, line, m.HowStderr, "standard error")
		ch.streamHits(now, line, m.HowStderr, "standard error")
		ch.judge(now, m.ChannelStderr, "", string(line), false)
	})
}

// hits records the canaries found in data.
func (ch *Observer) hits(t time.Time, data []byte, how, what string) {
	for _, h := range ch.finder.Find(data) {
		ch.add(observed{t: t, hit: &m.CanaryHit{Canary: h.Canary, How: how, Evidence: what, Encoding: h.Encoding}})
	}
}

// streamHits records the canaries found in a line together with the end
// of the lines before it on the same channel (how).
func (ch *Observer) streamHits(t time.Time, line []byte, how, what string) {
	ch.smu.Lock()
	s := ch.streams[how]
	if s == nil {
		s = ch.finder.Stream()
		ch.streams[how] = s
	}
	hits := s.Write(append(bytes.Clone(line), '\n'))
	ch.smu.Unlock()
	for _, h := range hits {
		ch.add(observed{t: t, hit: &m.CanaryHit{Canary: h.Canary, How: how, Evidence: what, Encoding: h.Encoding}})
	}
}

// judge keeps the text when it must always be kept or looks aimed at the
// model. It is redacted and cleaned first, so what is judged is what the
// manifest holds. A long text is judged in overlapping chunks to its end,
// up to maxJudgedText per text and maxJudged per channel and segment;
// text left unjudged is kept as a message of its own (policy.UnjudgedText),
// which the policy reports.
func (ch *Observer) judge(t time.Time, channel, method, text string, always bool) {
	whole := len(text) <= maxJudgedText
	text = textsafe.Text(ch.cs.Redact(textsafe.Valid(text, maxJudgedText)), maxJudgedText)
	if strings.TrimSpace(text) == "" {
		return
	}
	if always {
		ch.keep(t, m.ServerMessage{Channel: channel, Method: method, Text: textsafe.Clip(text, maxMessageText)})
	}
	ch.mu.Lock()
	room := max(0, maxJudged-ch.judged[channel])
	ch.judged[channel] += min(len(text), room)
	ch.mu.Unlock()
	if len(text) > room {
		text, whole = textsafe.Valid(text, room), false
	}
	if !always {
		ch.mu.Lock()
		left := maxJudgeTime - ch.spent[channel]
		ch.mu.Unlock()
		begin := time.Now()
		sign, done := signChunk(text, begin.Add(left))
		ch.mu.Lock()
		ch.spent[channel] += time.Since(begin)
		ch.mu.Unlock()
		if sign != "" {
			ch.keep(t, m.ServerMessage{Channel: channel, Method: method, Text: sign})
		}
		whole = whole && done
	}
	if !whole {
		ch.unjudged(t, channel, method)
	}
}

// unjudged records, once per channel, that some of its text was not
// judged.
func (ch *Observer) unjudged(t time.Time, channel, method string) {
	ch.mu.Lock()
	first := !ch.cut[channel]
	ch.cut[channel] = true
	ch.mu.Unlock()
	if first {
		ch.keep(t, m.ServerMessage{Channel: channel, Method: method, Text: policy.UnjudgedText})
	}
}

// signChunk judges text in chunks of maxScanText that overlap by
// judgeOverlap and returns the first chunk that carries signs (bounded to
// maxMessageText around them: the policy judges the kept text again), or
// "". It stops at the deadline, and then says it did not reach the end.
func signChunk(text string, deadline time.Time) (string, bool) {
	for start := 0; start < len(text); start += maxScanText - judgeOverlap {
		if time.Now().After(deadline) {
			return "", false
		}
		end := min(len(text), start+maxScanText)
		chunk := runeSlice(text, start, end)
		if len(policy.InjectionSigns(chunk)) > 0 {
			return signExcerpt(chunk), true
		}
		if end == len(text) {
			break
		}
	}
	return "", true
}

// runeSlice is text[start:end] with both ends moved back to the start of
// a rune (text is valid UTF-8).
func runeSlice(text string, start, end int) string {
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[start:end]
}

// signExcerpt bounds a long text that carries signs to the part of it
// that does. Chunks overlap by half, so a rule's span up to half a chunk
// (a directive two lines before the command it asks to run) lies whole
// in one of them wherever it falls.
func signExcerpt(text string) string {
	if len(text) <= maxMessageText {
		return text
	}
	for start := 0; start < len(text); start += maxMessageText / 2 {
		chunk := runeSlice(text, start, min(len(text), start+maxMessageText))
		if len(policy.InjectionSigns(chunk)) > 0 {
			return chunk
		}
	}
	return textsafe.Clip(text, maxMessageText)
}

func (ch *Observer) keep(t time.Time, msg m.ServerMessage) {
	ch.add(observed{t: t, msg: &msg})
}

func (ch *Observer) add(o observed) {
	b, _ := json.Marshal(struct {
		H *m.CanaryHit
		M *m.ServerMessage
	}{o.hit, o.msg})
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.seen[string(b)] {
		return
	}
	if len(ch.recs) >= maxObserved && o.hit == nil {
		ch.dropped++
		return
	}
	ch.seen[string(b)] = true
	ch.recs = append(ch.recs, o)
}

// Stderr is the writer the sandbox copies the server's standard error
// to.
func (ch *Observer) Stderr() io.Writer { return &ch.errw }

// Stdout is a writer for a server's standard output when it is not the
// MCP channel (a server speaking HTTP): each line is observed as a stdout
// line. Close passes on what follows the last newline.
func (ch *Observer) Stdout() io.WriteCloser {
	return &lineWriter{fn: func(line []byte) {
		ch.Observe(mcpclient.Observation{Channel: mcpclient.ChanStdout, Data: line, Size: len(line)})
	}}
}

// ListChanged reports, and clears, whether the server announced a changed
// list (notifications/*/list_changed) since the last call: a client
// refreshes at once.
func (ch *Observer) ListChanged() bool { return ch.listChanged.Swap(false) }

// Result judges the text of a call's result as the model would read it,
// stamped now (kept as a message of channel result when it carries
// instructions for the model).
func (ch *Observer) Result(method string, raw []byte) {
	now, text := time.Now(), bytes.Clone(raw)
	ch.enqueueSized(int64(len(text)), func() { ch.judge(now, m.ChannelResult, method, jsonText(text), false) })
}

// Summary is what the observer could not keep or search.
type Summary struct {
	// Dropped counts records past maxObserved; Unsearched the bytes past
	// the search bound.
	Dropped    int
	Unsearched int64
}

// Notes explain the summary in the manifest's words.
func (s Summary) Notes() []string {
	if s.Dropped == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d messages the server sent outside its answers were not kept (limit %d)", s.Dropped, maxObserved)}
}

// Alerts are the summary's alerts for the run's last phase.
func (s Summary) Alerts() []m.Alert {
	if s.Unsearched == 0 {
		return nil
	}
	return []m.Alert{{Kind: m.AlertTraceIncomplete,
		Detail: fmt.Sprintf("%d MiB the server printed outside its answers were past the %d MiB searched for canaries", s.Unsearched>>20, maxSearched>>20)}}
}

// Records waits until everything queued has been searched and judged and
// returns what was found, for classify to place in its phases.
func (ch *Observer) Records() ([]classify.Observed, Summary) {
	ch.errw.flush()
	ch.drain()
	ch.mu.Lock()
	defer ch.mu.Unlock()
	out := make([]classify.Observed, 0, len(ch.recs))
	for _, o := range ch.recs {
		out = append(out, classify.Observed{Time: o.t, Canary: o.hit, Message: o.msg})
	}
	ch.bmu.Lock()
	defer ch.bmu.Unlock()
	return out, Summary{Dropped: ch.dropped, Unsearched: ch.unsearched}
}

// jsonText collects the strings of a JSON value (the texts a client may
// show the user or hand to the model), skipping protocol words, joined by
// newlines. Data that is not JSON is returned as it is.
func jsonText(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b strings.Builder
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 20 || b.Len() > maxJudgedText {
			return
		}
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if props, ok := x[k].(map[string]any); ok && k == "properties" {
					// Field names of a requested schema: "password" is text.
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					slices.Sort(names)
					b.WriteString(strings.Join(names, "\n") + "\n")
				}
				switch k {
				case "type", "format", "progressToken", "mimeType", "uri", "role", "level":
					continue
				}
				walk(x[k], depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return b.String()
}

// Bounds on the raw texts kept for the comparison of runs.
const (
	maxTexts     = 2048
	maxTextBytes = 16 << 10
)

// text keeps what the server said, raw (canaries included: the texts
// never leave the host's memory unredacted), for the comparison of runs
// that differ in their secrets (internal/differential).
func (ch *Observer) text(t time.Time, dest string, data []byte) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if len(ch.texts) >= maxTexts {
		return
	}
	if len(data) > maxTextBytes {
		data = data[:maxTextBytes]
	}
	ch.texts = append(ch.texts, differential.Text{Time: t, Channel: differential.ChannelMessage, Dest: dest, Text: string(data)})
}

// Texts are the raw texts the server said besides its answers (Records
// drains the queue first).
func (ch *Observer) Texts() []differential.Text {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return slices.Clone(ch.texts)
}
