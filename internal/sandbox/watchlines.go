package sandbox

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Watch is what the outside observer (watch.py) saw: decoy reads and
// programs opened in the bin directories, with no tracer involved.
type Watch struct {
	// Lost: the watcher's kernel queue overflowed or it saw more programs
	// than it keeps ("lost"): what it missed cannot be compared.
	Lost  bool
	Reads []WatchRead
	Execs []WatchExec
	// Problems are lines no parser knows (bounded).
	Problems []string
}

// WatchRead is a decoy opened or read ("read SECONDS PATH"); Path is the
// sandbox path as the watcher wrote it.
type WatchRead struct {
	At   time.Time
	Path string
}

// WatchExec is a program opened in a bin directory ("exec COUNT PATH
// ALIAS..."): Names are the resolved path first, then the other names it
// goes by, cleaned.
type WatchExec struct {
	Count int
	Names []string
}

// Bounds of what is kept from the watcher (hostile input: the server can
// make it see anything it can open).
const (
	maxWatchExecs = 4096
	maxWatchNames = 16
	maxWatchReads = 4096
)

// ParseWatch reads the watcher's lines. Past its bound on programs the
// report is Lost: a flood must not hide a program by pushing it out.
func ParseWatch(lines []string) Watch {
	var w Watch
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "lost":
			w.Lost = true
		case len(f) >= 3 && f[0] == "read":
			// The path is everything after the time: it may hold spaces.
			_, rest, _ := strings.Cut(line, " ")
			sec, p, _ := strings.Cut(rest, " ")
			at, ok := parseSeconds(sec)
			if !ok {
				w.problem(line)
				continue
			}
			if len(w.Reads) < maxWatchReads {
				w.Reads = append(w.Reads, WatchRead{At: at, Path: p})
			}
		case len(f) >= 3 && f[0] == "exec":
			n, err := strconv.Atoi(f[1])
			if err != nil {
				w.problem(line)
				continue
			}
			if len(w.Execs) >= maxWatchExecs {
				w.Lost = true
				continue
			}
			var names []string
			for _, s := range f[2:min(len(f), 2+maxWatchNames)] {
				names = append(names, path.Clean(s))
			}
			w.Execs = append(w.Execs, WatchExec{Count: n, Names: names})
		default:
			w.problem(line)
		}
	}
	return w
}

func (w *Watch) problem(line string) {
	st := Status{Problems: w.Problems}
	st.problem(line)
	w.Problems = st.Problems
}

// AccessTimes are a decoy file's times after the run ("atime mtime ctime
// path"; "missing …" lines are left out): a read moves atime past ctime,
// since seeding sets both together.
type AccessTimes struct {
	Atime, Mtime, Ctime time.Time
	Path                string
}

// Read reports whether the file was read after seeding.
func (a AccessTimes) Read() bool { return a.Atime.After(a.Ctime) }

// ParseAccessTimes reads the access-time witness's lines.
func ParseAccessTimes(lines []string) []AccessTimes {
	var out []AccessTimes
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] == "missing" {
			continue
		}
		at, ok1 := parseSeconds(f[0])
		mt, ok2 := parseSeconds(f[1])
		ct, ok3 := parseSeconds(f[2])
		if ok1 && ok2 && ok3 {
			out = append(out, AccessTimes{Atime: at, Mtime: mt, Ctime: ct, Path: f[3]})
		}
	}
	return out
}

// HomeChange is a file or link in the home changed after seeding ("size
// path").
type HomeChange struct {
	Size int64
	Path string
}

// maxHomeChanges bounds the home changes kept.
const maxHomeChanges = 64

// ParseHomeChanges reads the home scan's lines.
func ParseHomeChanges(lines []string) []HomeChange {
	var out []HomeChange
	for _, line := range lines {
		size, p, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || len(out) >= maxHomeChanges {
			continue
		}
		out = append(out, HomeChange{Size: n, Path: p})
	}
	return out
}

// Process is a process by id and name ("PID COMM" lines).
type Process struct {
	PID  int
	Comm string
}

// ParseOutlived reads the entrypoint's list of processes that outlived
// the server.
func ParseOutlived(lines []string) []Process {
	var out []Process
	for _, l := range lines {
		pid, comm, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 || len(out) >= 32 {
			continue
		}
		out = append(out, Process{PID: n, Comm: textsafe.Line(comm, 64)})
	}
	return out
}
