package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// The sandbox talks to the host in text files its entrypoint (entry.sh)
// and file watcher (watch.py) write. They are parsed here, once, into
// types: nothing above this package matches a prefix of a sandbox line.
// The files are written inside a container the server shares, so they are
// untrusted: every line is bounded (readLines), numbers are parsed, and a
// line no parser knows is kept as a problem (Status.Problems), never
// dropped: a note the host cannot read is itself something to report.

// Status is the entrypoint's account of one run, from its notes.
type Status struct {
	// Started is when the entrypoint started the server ("started T").
	Started time.Time
	// Exit is how the server ended ("exit RC T"); nil when it never did.
	Exit *Exit
	// Install spans the install phase ("install-start T", "install-end
	// RC T"); nil without one. InstallTimeout: it was cut at its limit.
	Install        *Span
	InstallTimeout bool
	// ClockRate is the rate the clock shim was armed with ("clock N"),
	// ClockFast when it switched to it ("clock-fast T"; zero: never), and
	// ClockUnavailable that the image has no shim.
	ClockRate        int
	ClockFast        time.Time
	ClockUnavailable bool
	// TracePipeFailed: the trace's pipe could not be made; nothing was
	// traced.
	TracePipeFailed bool
	// WatchWaitTimeout: the entrypoint gave up waiting for its own
	// programs to start before the watcher; WatchNotReady: the watcher was
	// not ready when the server started.
	WatchWaitTimeout bool
	WatchNotReady    bool
	// NoiseDropped counts failed lookups the trace filter left out.
	NoiseDropped int64
	// Prelaunches counts the launches before the session (launch
	// history); MachineIDNotSet: /etc/machine-id could not be written.
	Prelaunches     int
	MachineIDNotSet bool
	// UserNotRenamed: the account could not take the run's user name.
	UserNotRenamed bool
	// Setup problems: the decoys could not be seeded, the resolver or the
	// sink's CA could not be installed.
	SeedFailed        bool
	ResolvNotReplaced bool
	CANotAdded        bool
	// PackageCopy spans the copy of the writable package ("package-copy-start
	// T", "package-copy-end T"); PackageCopyFailed: it failed, and the
	// server runs from an incomplete copy. PlaywrightLinkFailed: a
	// playwright browser build could not be linked to the image's Chromium.
	PackageCopy          *Span
	PackageCopyFailed    bool
	PlaywrightLinkFailed bool
	// Problems are notes no parser knows, or known words with arguments
	// that do not parse, cleaned and bounded.
	Problems []string
}

// Exit is the server's exit status and time.
type Exit struct {
	Code int
	At   time.Time
}

// Span is a start and an end, with the exit code of what ran in it.
type Span struct {
	Start, End time.Time
	Code       int
}

// statusWords are the note words entry.sh writes, each with its parser;
// TestEveryNoteWordIsParsed holds the entrypoint to this table.
var statusWords = map[string]func(st *Status, args []string) bool{
	"started": func(st *Status, a []string) bool { return parseAt(a, 0, &st.Started) && len(a) == 1 },
	"exit": func(st *Status, a []string) bool {
		e := Exit{}
		if len(a) != 2 || !parseInt(a[0], &e.Code) || !parseAt(a, 1, &e.At) {
			return false
		}
		st.Exit = &e
		return true
	},
	"install-start": func(st *Status, a []string) bool {
		sp := st.span()
		return len(a) == 1 && parseAt(a, 0, &sp.Start)
	},
	"install-end": func(st *Status, a []string) bool {
		sp := st.span()
		return len(a) == 2 && parseInt(a[0], &sp.Code) && parseAt(a, 1, &sp.End)
	},
	"install-timeout": flag(func(st *Status) *bool { return &st.InstallTimeout }),
	"clock": func(st *Status, a []string) bool {
		return len(a) == 1 && parseInt(a[0], &st.ClockRate)
	},
	"clock-fast":         func(st *Status, a []string) bool { return len(a) == 1 && parseAt(a, 0, &st.ClockFast) },
	"clock-unavailable":  flag(func(st *Status) *bool { return &st.ClockUnavailable }),
	"trace-pipe-failed":  flag(func(st *Status) *bool { return &st.TracePipeFailed }),
	"watch-wait-timeout": flag(func(st *Status) *bool { return &st.WatchWaitTimeout }),
	"watch-not-ready":    flag(func(st *Status) *bool { return &st.WatchNotReady }),
	"noise-dropped": func(st *Status, a []string) bool {
		n, err := strconv.ParseInt(strings.Join(a, ""), 10, 64)
		st.NoiseDropped = n
		return len(a) == 1 && err == nil && n >= 0
	},
	"seed-failed": flag(func(st *Status) *bool { return &st.SeedFailed }),
	"prelaunch": func(st *Status, a []string) bool {
		n := 0
		ok := len(a) == 1 && parseInt(a[0], &n)
		st.Prelaunches = max(st.Prelaunches, n)
		return ok
	},
	"machine-id":       phrase("not set", func(st *Status) *bool { return &st.MachineIDNotSet }),
	"user-not-renamed": flag(func(st *Status) *bool { return &st.UserNotRenamed }),
	"package-copy-start": func(st *Status, a []string) bool {
		st.PackageCopy = &Span{}
		return len(a) == 1 && parseAt(a, 0, &st.PackageCopy.Start)
	},
	"package-copy-end": func(st *Status, a []string) bool {
		return st.PackageCopy != nil && len(a) == 1 && parseAt(a, 0, &st.PackageCopy.End)
	},
	"package-copy-failed":    flag(func(st *Status) *bool { return &st.PackageCopyFailed }),
	"playwright-link-failed": flag(func(st *Status) *bool { return &st.PlaywrightLinkFailed }),
	// "resolv.conf not replaced" and "ca not added" are phrases.
	"resolv.conf": phrase("not replaced", func(st *Status) *bool { return &st.ResolvNotReplaced }),
	"ca":          phrase("not added", func(st *Status) *bool { return &st.CANotAdded }),
}

func (st *Status) span() *Span {
	if st.Install == nil {
		st.Install = &Span{}
	}
	return st.Install
}

func flag(field func(*Status) *bool) func(*Status, []string) bool {
	return func(st *Status, a []string) bool {
		*field(st) = true
		return len(a) == 0
	}
}

func phrase(rest string, field func(*Status) *bool) func(*Status, []string) bool {
	return func(st *Status, a []string) bool {
		if strings.Join(a, " ") != rest {
			return false
		}
		*field(st) = true
		return true
	}
}

// maxProblems bounds the unknown notes kept.
const maxProblems = 16

// ParseStatus reads the entrypoint's notes. A later note of a word
// replaces an earlier one (the entrypoint writes each once; a server that
// could append to the file gains nothing it could not write first).
func ParseStatus(lines []string) Status {
	var st Status
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		parse := statusWords[f[0]]
		if parse == nil || !parse(&st, f[1:]) {
			st.problem(line)
		}
	}
	if st.Install != nil && (st.Install.Start.IsZero() || st.Install.End.IsZero()) {
		st.Install = nil // half a span is no window
	}
	if st.PackageCopy != nil && st.PackageCopy.End.IsZero() {
		st.PackageCopy = nil
	}
	return st
}

func (st *Status) problem(line string) {
	if len(st.Problems) < maxProblems {
		st.Problems = append(st.Problems, textsafe.Line(line, 200))
	}
}

// ClockApplied is the rate the server's clock ran at during idle: the
// armed rate once the switch happened, else 1.
func (st Status) ClockApplied() int {
	if st.ClockFast.IsZero() || st.ClockRate <= 1 {
		return 1
	}
	return st.ClockRate
}

// WatchLate reports whether a file watcher started late or its start was
// not waited for: what it saw is then not complete.
func (st Status) WatchLate() bool { return st.WatchWaitTimeout || st.WatchNotReady }

// parseAt parses a[i] as seconds since the epoch with a fraction.
func parseAt(a []string, i int, t *time.Time) bool {
	if i >= len(a) {
		return false
	}
	v, ok := parseSeconds(a[i])
	*t = v
	return ok
}

// parseSeconds parses "1733080000.123456789".
func parseSeconds(s string) (time.Time, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

func parseInt(s string, n *int) bool {
	v, err := strconv.Atoi(s)
	*n = v
	return err == nil
}

// Notes explain, for the manifest, what went wrong in setting up the
// sandbox, and what the entrypoint said that nothing here knows.
func (st Status) Notes() []string {
	var out []string
	add := func(ok bool, note string) {
		if ok {
			out = append(out, note)
		}
	}
	add(st.SeedFailed, "sandbox: seed-failed")
	add(st.ResolvNotReplaced, "sandbox: resolv.conf not replaced")
	add(st.InstallTimeout, "sandbox: install-timeout")
	add(st.CANotAdded, "sandbox: the sink's certificate authority could not be added to the system trust store: TLS the server makes through it may not be read")
	add(st.TracePipeFailed, "sandbox: the trace's pipe could not be made; nothing was traced")
	add(st.MachineIDNotSet, "sandbox: /etc/machine-id could not be written: the run kept the image's machine id")
	add(st.UserNotRenamed, "sandbox: the account could not take the run's user name: the run kept the image's")
	add(st.PackageCopyFailed, "sandbox: the package could not be copied where the server may write it; it runs from an incomplete copy")
	add(st.PlaywrightLinkFailed, "sandbox: a playwright browser build could not be linked to the image's Chromium")
	if st.NoiseDropped > 0 {
		out = append(out, fmt.Sprintf("the trace left out %d failed lookups of temporary, system and package paths past the first 20,000 (noise no rule judges; the size limit is for behavior)", st.NoiseDropped))
	}
	for _, p := range st.Problems {
		out = append(out, "sandbox: an unknown note: "+p)
	}
	return out
}
