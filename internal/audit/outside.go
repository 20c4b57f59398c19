package audit

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// What the sandbox saw of a run from outside the server's processes that
// the manifest does not hold: the programs the watcher saw opened (the
// witness run only) and the files changed in the home (both runs). The
// witness comparison reads them; nothing here is published.
type outsideView struct {
	// opened are the programs the trace shows opened by a system call:
	// the run's watcher saw those opens too, and they execute nothing.
	opened map[string]bool
	// oddExec: a segment's trace was cut or showed an exec that failed
	// after the kernel may have opened a program.
	oddExec bool
	// lost: the watcher lost events (its queue overflowed, or past its
	// bound on programs): what it missed cannot be compared.
	lost bool
	// watchLate: the entrypoint noted that its file watcher started late
	// or waited out its bound for its own programs to start.
	watchLate bool
	// execs are the programs opened in the bin directories, each as the
	// names it goes by (the resolved path first).
	execs [][]string
	// home maps a changed home file ("~/.bashrc") to its size.
	home map[string]string
}

// Bounds on what is kept of the sandbox's lists (hostile input).
const (
	maxOutsideExecs = 4096
	maxOutsideHome  = 64
	maxOutsideNames = 16
)

// outsideOf gathers every segment's outside observations.
func outsideOf(segs []*segment, l classify.Layout) outsideView {
	v := outsideView{home: map[string]string{}, opened: map[string]bool{}}
	for _, s := range segs {
		for _, p := range s.binOpened {
			v.opened[p] = true
		}
		v.oddExec = v.oddExec || s.oddExec
		if s.art == nil {
			continue
		}
		v.watchLate = v.watchLate || slices.ContainsFunc(s.art.Status, func(st string) bool {
			return st == "watch-wait-timeout" || st == "watch-not-ready"
		})
		for _, line := range s.art.Watch {
			v.lost = v.lost || line == "lost"
			if names := watchExec(line); names != nil {
				if len(v.execs) >= maxOutsideExecs {
					v.lost = true
					continue
				}
				v.execs = append(v.execs, names)
			}
		}
		for _, line := range s.art.HomeChanged {
			size, p, ok := strings.Cut(line, " ")
			if _, err := strconv.ParseInt(size, 10, 64); err != nil || !ok || len(v.home) >= maxOutsideHome {
				continue
			}
			v.home[l.Normalize(p)] = size
		}
	}
	return v
}

// watchExec parses "exec COUNT PATH ALIAS...".
func watchExec(line string) []string {
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "exec" {
		return nil
	}
	var names []string
	for _, n := range f[2:min(len(f), 2+maxOutsideNames)] {
		names = append(names, path.Clean(n))
	}
	return names
}

// watchReads parses the watcher's "read SECONDS PATH" lines into decoy
// reads for the classifier, leaving out paths the access-time witness
// already reports.
func watchReads(l classify.Layout, lines []string, atime []classify.WitnessRead) []classify.WitnessRead {
	var out []classify.WitnessRead
	for _, line := range lines {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || f[0] != "read" {
			continue
		}
		at, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		p := l.Normalize(f[2])
		if slices.ContainsFunc(atime, func(w classify.WitnessRead) bool { return w.Path == p }) {
			continue
		}
		sec := int64(at)
		out = append(out, classify.WitnessRead{Path: p, Time: time.Unix(sec, int64((at-float64(sec))*1e9)),
			Evidence: "opened or read, seen by the file watcher (no tracer)"})
	}
	return out
}

// homeNoise are changes a clean run makes in the home by itself, found by
// auditing clean servers with the witness on (docs/sandbox.md).
var homeNoise = []string{}

// outsideDifferences lists the programs and home changes only the
// witness run showed, keyed like the other observations.
func outsideDifferences(traced, witness outsideView, tracedProgs map[string]bool) map[string][]string {
	out := map[string][]string{}
	execs := witness.execs
	if traced.watchLate || witness.watchLate || traced.lost {
		execs = nil // the traced side's watcher may have missed some: programs are not compared (watchNote)
	}
	for _, names := range execs {
		if slices.ContainsFunc(names, func(n string) bool { return tracedProgs[n] || plumbing[n] }) {
			continue
		}
		out["process "+textsafe.Line(names[0], 200)] = []string{"opened " + textsafe.Line(strings.Join(names, " = "), 400) + " (a program started or read; seen by the file watcher)"}
	}
	if witness.lost {
		out["file watcher lost events"] = []string{"the witness run's file watcher lost events (its queue overflowed under a flood of opens, or more programs than it keeps): a program or decoy read may be missing from this comparison"}
	}
	for p, size := range witness.home {
		if _, ok := traced.home[p]; ok || isHomeNoise(p) || sameCacheDir(p, traced.home) {
			continue
		}
		out["home file "+textsafe.Line(p, 200)+" changed"] = []string{"after the run: " + textsafe.Line(p, 200) + " new or changed, " + size + " bytes"}
	}
	return out
}

// watchNote explains, for the manifest, why programs were not compared.
func watchNote(traced, witness outsideView) string {
	switch {
	case traced.watchLate || witness.watchLate:
		return "the programs the two runs opened were not compared: a file watcher started late (a loaded machine); canaries, hosts and home files were"
	case traced.lost:
		return "the programs the two runs opened were not compared: the traced run's file watcher lost events; canaries, hosts and home files were"
	}
	return ""
}

// plumbing are programs the entrypoint itself opens while the watcher
// runs: it starts the server through setpriv.
var plumbing = map[string]bool{"/usr/bin/setpriv": true, "/bin/setpriv": true}

// cacheDirs hold files a runtime names at random (a hash, a date): a
// change there matches any change the traced run made in the same
// directory.
var cacheDirs = []string{"~/.cache/", "~/.npm/"}

func sameCacheDir(p string, traced map[string]string) bool {
	if !slices.ContainsFunc(cacheDirs, func(d string) bool { return strings.HasPrefix(p, d) }) {
		return false
	}
	for q := range traced {
		if path.Dir(q) == path.Dir(p) {
			return true
		}
	}
	return false
}

func isHomeNoise(p string) bool {
	return slices.ContainsFunc(homeNoise, func(n string) bool { return p == n || strings.HasPrefix(p, n+"/") })
}

// tracedPrograms are the programs the traced run executed or tried to,
// by its trace and by its own file watcher: the watcher also sees what no
// trace shows, a script's interpreter (the kernel opens it: "npm" runs
// /usr/bin/env), so the witness run's programs are compared like with
// like. The programs the entrypoint opens while its watcher runs (the
// tracer, the clock switch's chmod, mv and date) are no interpreters.
func tracedPrograms(r *Result) map[string]bool {
	out := map[string]bool{}
	for _, ph := range r.Manifest.Phases {
		for _, pr := range ph.Processes {
			out[path.Clean(pr.Path)] = true
		}
	}
	if r.outside.oddExec {
		return out
	}
	for _, names := range r.outside.execs {
		// Only interpreters (what a script names after "#!"), and only
		// those the trace does not show opened by a system call: reading
		// /usr/bin/curl when traced must not excuse running it when not.
		if !slices.ContainsFunc(names, isInterpreter) ||
			slices.ContainsFunc(names, func(n string) bool { return r.outside.opened[n] }) {
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

// binOpened lists the programs in the bin directories that events open by
// a system call, by the path given and the path the descriptor resolved
// to (a script's interpreter, opened by the kernel, is not among them),
// and whether an exec failed after the kernel may have opened a program
// (a chain of scripts ending in one, a bad ELF interpreter, too long
// arguments): that open is in no trace.
func binOpened(events []trace.Event) (opened []string, oddExec bool) {
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
