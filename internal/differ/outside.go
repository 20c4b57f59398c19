package differ

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// Outside is what the sandbox saw of a run from outside the server's
// processes that the manifest does not hold: the programs its file
// watcher saw opened and the files changed in the home. Comparisons read
// it; nothing here is published.
type Outside struct {
	// Opened are the programs the trace shows opened by a system call:
	// the run's watcher saw those opens too, and they execute nothing.
	Opened map[string]bool
	// OddExec: a segment's trace was cut or showed an exec that failed
	// after the kernel may have opened a program.
	OddExec bool
	// Lost: the watcher lost events (its queue overflowed, or past its
	// bound on programs): what it missed cannot be compared.
	Lost bool
	// WatchLate: the entrypoint noted that its file watcher started late
	// or waited out its bound for its own programs to start.
	WatchLate bool
	// Execs are the programs opened in the bin directories, each as the
	// names it goes by (the resolved path first).
	Execs [][]string
	// Home maps a changed home file ("~/.bashrc") to its size.
	Home map[string]string
}

// homeNoise are changes a clean run makes in the home by itself, found by
// auditing clean servers with the witness on (docs/sandbox.md).
var homeNoise = []string{}

// OutsideOnlyIn lists the programs and home changes only the witness run
// (other) showed, keyed like the observations. The base run's programs are
// its trace's and its own watcher's (Programs).
func OutsideOnlyIn(traced, witness *Outside, tracedProgs map[string]bool) map[string][]string {
	out := map[string][]string{}
	if traced == nil || witness == nil {
		return out
	}
	execs := witness.Execs
	if traced.WatchLate || witness.WatchLate || traced.Lost {
		execs = nil // the traced side's watcher may have missed some: programs are not compared (watchNote)
	}
	for _, names := range execs {
		if slices.ContainsFunc(names, func(n string) bool { return tracedProgs[n] || plumbing[n] }) {
			continue
		}
		out["process "+textsafe.Line(names[0], 200)] = []string{"opened " + textsafe.Line(strings.Join(names, " = "), 400) + " (a program started or read; seen by the file watcher)"}
	}
	if witness.Lost {
		out["file watcher lost events"] = []string{"the witness run's file watcher lost events (its queue overflowed under a flood of opens, or more programs than it keeps): a program or decoy read may be missing from this comparison"}
	}
	for p, size := range witness.Home {
		if _, ok := traced.Home[p]; ok || isHomeNoise(p) || sameCacheDir(p, traced.Home) || sameButDated(p, traced.Home) {
			continue
		}
		out["home file "+textsafe.Line(p, 200)+" changed"] = []string{"after the run: " + textsafe.Line(p, 200) + " new or changed, " + size + " bytes"}
	}
	return out
}

// WatchNote explains, for the manifest, why programs were not compared.
func WatchNote(traced, witness *Outside) string {
	if traced == nil || witness == nil {
		return ""
	}
	switch {
	case traced.WatchLate || witness.WatchLate:
		return "the programs the two runs opened were not compared: a file watcher started late (a loaded machine); canaries, hosts and home files were"
	case traced.Lost:
		return "the programs the two runs opened were not compared: the traced run's file watcher lost events; canaries, hosts and home files were"
	}
	return ""
}

// launchedBy maps the image's browser binary to its launcher
// (sandbox.ChromiumBinary, sandbox.ChromiumPath): every name a program
// starts the browser by (Chrome's /opt/google/chrome/chrome, a playwright
// build's executable) is a link to the launcher, which the trace shows
// under the name the program used and the watcher under the launcher's,
// so a traced run that ran the browser ran its launcher.
var launchedBy = map[string]string{"/usr/lib/chromium/chromium": "/usr/bin/chromium"}

// plumbing are programs the entrypoint itself opens while the watcher
// runs: it starts the server through setpriv.
var plumbing = map[string]bool{"/usr/bin/setpriv": true, "/bin/setpriv": true}

// cacheDirs hold files a runtime names at random (a hash, a date): a
// change there matches any change the traced run made in the same
// directory.
var cacheDirs = []string{"~/.cache/", "~/.npm/"}

// sameCacheDir: the traced run changed a file in the same cache
// directory, or at the same place once the random parts of the names
// (hex digests, numbers: a browser profile named after a hash of the
// workspace path, which the runs vary) are set aside.
func sameCacheDir(p string, traced map[string]string) bool {
	if !slices.ContainsFunc(cacheDirs, func(d string) bool { return strings.HasPrefix(p, d) }) {
		return false
	}
	shape := randomParts(p)
	for q := range traced {
		if path.Dir(q) == path.Dir(p) || randomParts(q) == shape {
			return true
		}
	}
	return false
}

// sameButDated: the traced run changed the same file once the dates in
// the names are set aside (a log per day: okx-trade-mcp's
// ~/.okx/logs/trade-2026-12-02.log). The traced runs' clock starts days
// ahead of the witness run's real one, so a file named after the day is
// another name in each, written by the same code.
func sameButDated(p string, traced map[string]string) bool {
	shape := reDate.ReplaceAllString(p, "<date>")
	if shape == p {
		return false
	}
	for q := range traced {
		if reDate.ReplaceAllString(q, "<date>") == shape {
			return true
		}
	}
	return false
}

// reDate is a calendar date in a name (2026-12-02, 2026_12_02,
// 2026.12.02, 20261202), with a time of day after it when there is one
// (T17-38-41, _173841).
var reDate = regexp.MustCompile(`(?:19|20)\d\d(?:-(?:0[1-9]|1[0-2])-|_(?:0[1-9]|1[0-2])_|\.(?:0[1-9]|1[0-2])\.|(?:0[1-9]|1[0-2]))(?:0[1-9]|[12]\d|3[01])(?:[T_ -]?[01]\d|[T_ -]?2[0-3])?(?:[-:.]?[0-5]\d){0,2}`)

// reRandomPart is a name's part a program makes up: a run of hex digits
// with at least one digit, or of digits, six or more long.
var reRandomPart = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)

// randomParts is p with its made-up parts (six or more characters) as "*".
func randomParts(p string) string {
	return reRandomPart.ReplaceAllStringFunc(p, func(s string) string {
		if len(s) < 6 {
			return s
		}
		return "*"
	})
}

func isHomeNoise(p string) bool {
	return slices.ContainsFunc(homeNoise, func(n string) bool { return p == n || strings.HasPrefix(p, n+"/") })
}

// Programs are the programs the traced run executed or tried to,
// by its trace and by its own file watcher: the watcher also sees what no
// trace shows, a script's interpreter (the kernel opens it: "npm" runs
// /usr/bin/env), so the witness run's programs are compared like with
// like. The programs the entrypoint opens while its watcher runs (the
// tracer, the clock switch's chmod, mv and date) are no interpreters.
func Programs(r Run) map[string]bool {
	out := map[string]bool{}
	for _, ph := range r.Manifest.Phases {
		for _, pr := range ph.Processes {
			out[path.Clean(pr.Path)] = true
			if l, ok := launchedBy[path.Clean(pr.Path)]; ok {
				out[l] = true
			}
		}
	}
	if r.Outside == nil || r.Outside.OddExec {
		return out
	}
	for _, names := range r.Outside.Execs {
		// Only interpreters (what a script names after "#!"), and only
		// those the trace does not show opened by a system call: reading
		// /usr/bin/curl when traced must not excuse running it when not.
		if !slices.ContainsFunc(names, isInterpreter) ||
			slices.ContainsFunc(names, func(n string) bool { return r.Outside.Opened[n] }) {
			continue
		}
		for _, n := range names {
			out[n] = true
		}
	}
	return out
}

// maxBinOpened bounds the programs kept as opened per segment.
const maxBinOpened = 256

// BinOpened lists the programs in the bin directories that events open by
// a system call, by the path given and the path the descriptor resolved
// to (a script's interpreter, opened by the kernel, is not among them),
// and whether an exec failed after the kernel may have opened a program
// (a chain of scripts ending in one, a bad ELF interpreter, too long
// arguments): that open is in no trace.
func BinOpened(events []trace.Event) (opened []string, oddExec bool) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = path.Clean(p)
		if p == "." || seen[p] || len(out) >= maxBinOpened || !slices.Contains(binDirs, path.Dir(p)) {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for i := range events {
		ev := &events[i]
		if (ev.Name == "execve" || ev.Name == "execveat") && (ev.Incomplete || ev.Failed() && !slices.Contains(plainExecErrors, ev.Errno)) {
			oddExec = true
		}
		if ev.Failed() || !slices.Contains(openCalls, ev.Name) {
			continue
		}
		if r := trace.Interpret(*ev); r.Kind == trace.KindFile && r.Op == "open" {
			add(r.Path)
			if ev.RetPath != "" {
				add(ev.RetPath)
			}
		}
	}
	return out, oddExec
}

// plainExecErrors are the exec failures that come before the kernel opens
// a program: no such file, not a directory, permission.
var plainExecErrors = []string{"ENOENT", "ENOTDIR", "EACCES", "EPERM"}

// interpreterName matches the programs a script names after "#!".
var interpreterName = regexp.MustCompile(`^(env|sh|dash|bash|rbash|zsh|ksh|ash|busybox|node|nodejs|deno|bun|python[0-9.]*|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|tclsh[0-9.]*|awk|mawk|gawk)$`)

func isInterpreter(name string) bool { return interpreterName.MatchString(path.Base(name)) }

// openCalls are the system calls that open a file by name.
var openCalls = []string{"open", "openat", "openat2", "creat"}

// binDirs are the directories the watcher watches (watch.py's BIN_DIRS)
// and their usual links.
var binDirs = []string{"/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"}
