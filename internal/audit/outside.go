package audit

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// What the sandbox saw of a run from outside the server's processes that
// the manifest does not hold: the programs the watcher saw opened (the
// witness run only) and the files changed in the home (both runs). The
// witness comparison reads them; nothing here is published.
type outsideView struct {
	// execs are the programs opened in the bin directories, each as the
	// names it goes by (the resolved path first).
	execs [][]string
	// home maps a changed home file ("~/.bashrc") to its size.
	home map[string]string
}

// Bounds on what is kept of the sandbox's lists (hostile input).
const (
	maxOutsideExecs = 64
	maxOutsideHome  = 64
	maxOutsideNames = 16
)

// outsideOf gathers every segment's outside observations.
func outsideOf(segs []*segment, l classify.Layout) outsideView {
	v := outsideView{home: map[string]string{}}
	for _, s := range segs {
		if s.art == nil {
			continue
		}
		for _, line := range s.art.Watch {
			if names := watchExec(line); names != nil && len(v.execs) < maxOutsideExecs {
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
	for _, names := range witness.execs {
		if slices.ContainsFunc(names, func(n string) bool { return tracedProgs[n] || plumbing[n] }) {
			continue
		}
		out["process "+textsafe.Line(names[0], 200)] = []string{"opened " + textsafe.Line(strings.Join(names, " = "), 400) + " (a program started or read; seen by the file watcher)"}
	}
	for p, size := range witness.home {
		if _, ok := traced.home[p]; ok || isHomeNoise(p) || sameCacheDir(p, traced.home) {
			continue
		}
		out["home file "+textsafe.Line(p, 200)+" changed"] = []string{"after the run: " + textsafe.Line(p, 200) + " new or changed, " + size + " bytes"}
	}
	return out
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
// like. The entrypoint's own programs are left out.
func tracedPrograms(r *Result) map[string]bool {
	out := map[string]bool{}
	for _, ph := range r.Manifest.Phases {
		for _, pr := range ph.Processes {
			out[path.Clean(pr.Path)] = true
		}
	}
	for _, names := range r.outside.execs {
		if tracedPlumbing[names[0]] {
			continue
		}
		for _, n := range names {
			out[n] = true
		}
	}
	return out
}

// tracedPlumbing are the programs the traced run's entrypoint opens while
// its watcher runs (by resolved path): the tracer, and the clock switch's
// chmod, mv and date.
var tracedPlumbing = map[string]bool{"/usr/bin/strace": true, "/usr/bin/chmod": true, "/usr/bin/mv": true, "/usr/bin/date": true}
