// Package trace parses the output of
//
//	strace -f --seccomp-bpf -qq -ttt -yy -s N -e signal=none -o FILE
//
// into ordered syscall events. The trace is written inside the sandbox and is
// hostile input: the traced program chooses the paths, argv and buffers that
// appear in it. The parser therefore never trusts line structure beyond what
// strace guarantees (strings are quoted with every control byte escaped, so a
// program cannot forge a line), bounds every size, and counts lines it cannot
// understand instead of failing.
package trace

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits bound the work done on one trace.
type Limits struct {
	MaxBytes  int64 // stop reading after this many bytes (0: 512 MiB)
	MaxLine   int   // lines longer than this are cut (0: 64 KiB)
	MaxEvents int   // stop after this many events (0: 2,000,000)
	// MaxArg cuts each kept argument (0: 4 KiB, PATH_MAX): the work per
	// event and the memory per event stay bounded whatever the program
	// prints, before any classification regex sees it.
	MaxArg int
	// MaxRetained bounds the bytes of arguments kept over the whole trace
	// (0: 128 MiB); reaching it ends the parse as a cut trace.
	MaxRetained int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 512 << 20
	}
	if l.MaxLine <= 0 {
		l.MaxLine = 64 << 10
	}
	if l.MaxArg <= 0 {
		l.MaxArg = 4 << 10
	}
	if l.MaxRetained <= 0 {
		l.MaxRetained = 128 << 20
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = 2_000_000
	}
	return l
}

// Event is one system call, with unfinished/resumed halves joined.
type Event struct {
	// Seq is the line number (from 1) where the call started; events are
	// returned in Seq order.
	Seq  int
	PID  int
	Time time.Time
	Name string
	// Args are the top-level arguments as strace printed them.
	Args []string
	// Ret is the raw return text: "3", "-1 ENOENT (No such file…)", "?".
	Ret    string
	RetVal int64
	// RetKnown is false for "= ?" and for calls that never returned.
	RetKnown bool
	// RetPath is the -yy annotation of a returned fd: the real path an
	// open resolved to, after symlinks ("3</etc/passwd>").
	RetPath string
	Errno   string
	// Incomplete marks a call that was still in progress when the trace
	// ended (the process was killed, or the call blocked until the end).
	Incomplete bool
	// Cut marks an event parsed from a line that exceeded MaxLine.
	Cut bool
}

// Failed reports whether the call returned an error.
func (e *Event) Failed() bool { return e.Errno != "" }

// Stats describes the raw input.
type Stats struct {
	Bytes     int64
	Lines     int
	Malformed int
	Truncated bool // MaxBytes, MaxEvents or MaxRetained was reached
}

// Trace is a parsed trace.
type Trace struct {
	Events []Event
	Stats  Stats

	lim      Limits
	retained int64
	names    map[string]string
}

type pending struct {
	seq  int
	time time.Time
	name string
	args string
	cut  bool
}

// Parse reads a whole trace. It returns an error only when reading fails;
// malformed lines are counted in Stats.Malformed.
func Parse(r io.Reader, lim Limits) (*Trace, error) {
	return ParseContext(context.Background(), r, lim)
}

// ParseContext is Parse that stops when ctx ends (Ctrl-C during analysis
// of a huge trace), returning ctx's error.
func ParseContext(ctx context.Context, r io.Reader, lim Limits) (*Trace, error) {
	lim = lim.withDefaults()
	cr := &countingReader{r: io.LimitReader(r, lim.MaxBytes+1)}
	br := bufio.NewReaderSize(cr, 64<<10)
	t := &Trace{lim: lim}
	open := map[int]*pending{}
	for {
		line, cut, err := readLine(br, lim.MaxLine)
		if len(line) > 0 || (err == nil) {
			t.Stats.Lines++
			if t.Stats.Lines%4096 == 0 && ctx.Err() != nil {
				return t, ctx.Err()
			}
			if len(t.Events) >= lim.MaxEvents || t.retained >= lim.MaxRetained {
				t.Stats.Truncated = true
				break
			}
			t.parseLine(line, cut, open)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return t, err
		}
	}
	t.Stats.Bytes = min(cr.n, lim.MaxBytes)
	if cr.n > lim.MaxBytes {
		t.Stats.Truncated = true
	}
	// Calls still unfinished at the end: keep them, they may be the most
	// interesting ones (a connect that blocked, an execve that was killed).
	for pid, p := range open {
		ev := Event{Seq: p.seq, PID: pid, Time: p.time, Name: t.intern(p.name), Incomplete: true, Cut: p.cut}
		ev.Args, _ = splitArgs(p.args)
		ev.Args = t.keep(ev.Args)
		t.Events = append(t.Events, ev)
	}
	sortEvents(t.Events)
	return t, nil
}

// readLine returns the next line without its newline, cut to max bytes.
func readLine(br *bufio.Reader, max int) (string, bool, error) {
	var sb strings.Builder
	cut := false
	for {
		frag, err := br.ReadSlice('\n')
		if room := max - sb.Len(); room > 0 {
			if len(frag) > room {
				sb.Write(frag[:room])
				cut = true
			} else {
				sb.Write(frag)
			}
		} else if len(frag) > 0 {
			cut = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimSuffix(sb.String(), "\n")
		return s, cut, err
	}
}

func (t *Trace) parseLine(line string, cut bool, open map[int]*pending) {
	seq := t.Stats.Lines
	pid, ts, rest, ok := splitPrefix(line)
	if !ok {
		if strings.TrimSpace(line) != "" {
			t.Stats.Malformed++
		}
		return
	}
	switch {
	case strings.HasPrefix(rest, "--- SIGSYS "):
		// A call the sandbox's seccomp profile trapped (the only signal the
		// entrypoint asks strace to print): an errno would have outranked
		// the tracer and left no line at all.
		t.Events = append(t.Events, Event{Seq: seq, PID: pid, Time: ts, Name: "SIGSYS",
			Args: t.keep([]string{strings.TrimSuffix(strings.TrimPrefix(rest, "--- SIGSYS "), " ---")}), Ret: "SIGSYS", Errno: "SIGSYS"})
	case strings.HasPrefix(rest, "+++ ") || strings.HasPrefix(rest, "--- "):
		// Exit and signal notices; -qq and -e signal=none normally hide them.
		return
	case strings.HasPrefix(rest, "<... "):
		// "<... openat resumed>) = 3"
		after := rest[len("<... "):]
		end := strings.Index(after, " resumed>")
		if end <= 0 || !isIdent(after[:end]) {
			t.Stats.Malformed++
			return
		}
		name := after[:end]
		tail := after[end+len(" resumed>"):]
		p := open[pid]
		if p == nil || p.name != name {
			// The start was lost (trace began mid-call or the line was
			// malformed); keep what we have.
			p = &pending{seq: seq, time: ts, name: name}
		}
		delete(open, pid)
		t.addCall(p.seq, pid, p.time, name, p.args+tail, p.cut || cut)
	default:
		paren := strings.IndexByte(rest, '(')
		if paren <= 0 || !isIdent(rest[:paren]) {
			t.Stats.Malformed++
			return
		}
		name := rest[:paren]
		body := rest[paren+1:]
		if s, ok := strings.CutSuffix(body, " <unfinished ...>"); ok {
			if old := open[pid]; old != nil {
				ev := Event{Seq: old.seq, PID: pid, Time: old.time, Name: t.intern(old.name), Incomplete: true, Cut: old.cut}
				ev.Args, _ = splitArgs(old.args)
				ev.Args = t.keep(ev.Args)
				t.Events = append(t.Events, ev)
			}
			open[pid] = &pending{seq: seq, time: ts, name: name, args: s, cut: cut}
			return
		}
		t.addCall(seq, pid, ts, name, body, cut)
	}
}

func (t *Trace) addCall(seq, pid int, ts time.Time, name, body string, cut bool) {
	args, rest := splitArgs(body)
	args = t.keep(args)
	ev := Event{Seq: seq, PID: pid, Time: ts, Name: t.intern(name), Args: args, Cut: cut}
	rest = strings.TrimLeft(rest, " ")
	if r, ok := strings.CutPrefix(rest, "= "); ok {
		ev.Ret = strings.Clone(strings.TrimSpace(r[:min(len(r), t.lim.MaxArg)]))
		parseRet(&ev)
	} else if !cut {
		t.Stats.Malformed++
	}
	t.Events = append(t.Events, ev)
}

// intern shares one copy of each syscall name (a substring would keep its
// whole line alive).
func (t *Trace) intern(name string) string {
	if t.names == nil {
		t.names = map[string]string{}
	}
	if s, ok := t.names[name]; ok {
		return s
	}
	if len(t.names) < 1024 {
		name = strings.Clone(name)
		t.names[name] = name
		return name
	}
	return strings.Clone(name)
}

// keep copies args out of the line, each cut to MaxArg, so the line can be
// freed and one event costs bounded memory; it counts what is retained.
func (t *Trace) keep(args []string) []string {
	lim := t.lim.MaxArg // set by withDefaults
	for i, a := range args {
		if len(a) > lim {
			a = a[:lim]
		}
		args[i] = strings.Clone(a)
		t.retained += int64(len(a)) + 16
	}
	t.retained += 128 // the event itself
	return args
}

// parseRet fills RetVal, RetKnown and Errno from Ret.
//
//	"3"  "-1 ENOENT (No such file or directory)"  "0x7f12 "  "?"  "? <unavailable>"
func parseRet(ev *Event) {
	f := strings.Fields(ev.Ret)
	if len(f) == 0 || f[0] == "?" {
		return
	}
	// Return values may carry an fd annotation: 3</etc/passwd>.
	num := f[0]
	if i := strings.IndexByte(num, '<'); i > 0 {
		num = num[:i]
		// The annotation may contain spaces: take it from the raw text.
		if ann, ok := Annotation(firstToken(ev.Ret)); ok {
			ev.RetPath = ann
		}
	}
	v, err := strconv.ParseInt(num, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(num, 0, 64)
		if uerr != nil {
			return
		}
		v = int64(u)
	}
	ev.RetVal, ev.RetKnown = v, true
	if v < 0 && len(f) > 1 && isErrno(f[1]) {
		ev.Errno = f[1]
	}
}

func isErrno(s string) bool {
	if len(s) < 2 || s[0] != 'E' {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// splitPrefix splits "PID   SECONDS.MICROS rest" (PID absent without -f).
func splitPrefix(line string) (pid int, ts time.Time, rest string, ok bool) {
	s := line
	first, s, found := strings.Cut(s, " ")
	if !found {
		return 0, time.Time{}, "", false
	}
	if !strings.Contains(first, ".") {
		p, err := strconv.Atoi(first)
		if err != nil || p < 0 {
			return 0, time.Time{}, "", false
		}
		pid = p
		s = strings.TrimLeft(s, " ")
		first, s, found = strings.Cut(s, " ")
		if !found {
			return 0, time.Time{}, "", false
		}
	}
	sec, frac, found := strings.Cut(first, ".")
	if !found {
		return 0, time.Time{}, "", false
	}
	secs, err1 := strconv.ParseInt(sec, 10, 64)
	micro, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || len(frac) > 9 || secs < 0 || micro < 0 {
		return 0, time.Time{}, "", false
	}
	for i := len(frac); i < 9; i++ {
		micro *= 10
	}
	return pid, time.Unix(secs, micro).UTC(), s, true
}

func isIdent(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// splitArgs splits the text after "name(" into top-level arguments and
// returns the remainder after the closing parenthesis. It understands
// quoted strings with escapes, nested (), [], {}, fd annotations such as
// 3</path> and comments /* … */. Unbalanced input yields what was seen.
func splitArgs(s string) (args []string, rest string) {
	depth := 0
	start := 0
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '<' && i > 0 && isAnnotationStart(s[i-1]):
			i = skipAnnotation(s, i)
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			if end := strings.Index(s[i+2:], "*/"); end >= 0 {
				i += end + 4
				continue
			}
			i = len(s)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == ')':
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" || len(args) > 0 {
					args = append(args, a)
				}
				return args, s[i+1:]
			}
			depth--
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
		i++
	}
	if a := strings.TrimSpace(s[start:]); a != "" {
		args = append(args, a)
	}
	return args, ""
}

func isAnnotationStart(prev byte) bool {
	return prev >= '0' && prev <= '9' || prev >= 'A' && prev <= 'Z' || prev >= 'a' && prev <= 'z' || prev == ']'
}

// skipQuoted returns the index just after the closing quote (and a
// following "..." truncation marker) of the string starting at s[i].
func skipQuoted(s string, i int) int {
	i++
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '"':
			i++
			if strings.HasPrefix(s[i:], "...") {
				i += 3
			}
			return i
		}
		i++
	}
	return len(s)
}

// skipAnnotation skips "<…>" allowing nesting such as <TCP:[1.2.3.4:5]>
// and backslash escapes.
func skipAnnotation(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(s)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func sortEvents(evs []Event) {
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.Seq, b.Seq) })
}

// firstToken returns the return value with its annotation, which ends at
// the matching '>' even if the path holds spaces.
func firstToken(ret string) string {
	i := strings.IndexByte(ret, '<')
	if i < 0 {
		return ret
	}
	end := skipAnnotation(ret, i)
	return ret[:end]
}
