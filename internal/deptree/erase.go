package deptree

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// File operations of an install-phase event, in trace order.
const (
	OpCreate = "create" // a new file (O_CREAT on a path that did not exist, link target)
	OpWrite  = "write"  // an existing file opened for writing, truncated
	OpDelete = "delete"
	OpRename = "rename" // Path renamed onto Target
	OpExec   = "exec"
)

// FileEvent is one file operation of the install phase, as the caller
// extracts it from the trace (what is left on disk cannot show an install
// that erased its traces; the order of operations can).
type FileEvent struct {
	Path   string
	Op     string
	Target string // a rename's destination
}

// Erasure kinds, with their weights.
const (
	// EraseTransient: written and deleted within the install (low: build
	// temporaries such as node-gyp's *.d.raw look like this).
	EraseTransient = "written-then-deleted"
	// EraseDropped: written, executed and deleted (high: a dropped
	// payload that removed itself).
	EraseDropped = "dropped-run-deleted"
	// EraseExisting: a file that was there before the install, deleted by
	// it (medium: an install script that deletes itself, setup.js in the
	// axios case).
	EraseExisting = "deleted-existing-file"
	// EraseManifest: a package.json written or renamed over (high: it
	// hides the install script from whoever reads node_modules later, as
	// the axios case's dependency did with a clean copy).
	EraseManifest = "replaced-manifest"
)

// MaxFileEvents bounds the events Erasures reads; the rest are counted.
const MaxFileEvents = 1_000_000

// maxHistory bounds the operations an erasure lists.
const maxHistory = 8

// Erasure is one sign that an install removed or rewrote its traces.
type Erasure struct {
	Kind string `json:"kind"`
	// Path is where the file was first seen.
	Path string `json:"path"`
	// Ops is what happened to it, in order ("create", "exec", "rename
	// <to>", "delete"), at most maxHistory.
	Ops      []string `json:"ops"`
	Severity Severity `json:"severity"`
}

// fileState follows one file's content through renames.
type fileState struct {
	origin   string
	created  bool // created in this install (not there before)
	executed bool
	ops      []string
}

func (s *fileState) note(op string) {
	if len(s.ops) < maxHistory {
		s.ops = append(s.ops, op)
	}
}

// Erasures finds, in the install phase's file events (trace order), the
// files written then deleted, dropped-run-deleted payloads, deleted files
// that were there before, and replaced package.json files, for paths under
// roots (path prefixes, "" for all: the package tree, and temporary
// directories where payloads land). It returns them sorted, and how many
// events were past MaxFileEvents.
func Erasures(events []FileEvent, roots []string) ([]Erasure, int) {
	omitted := max(0, len(events)-limits.fileEvents)
	events = events[:len(events)-omitted]
	live := map[string]*fileState{}
	var out []Erasure
	emit := func(kind string, s *fileState, sev Severity) {
		out = append(out, Erasure{Kind: kind, Path: s.origin, Ops: slices.Clone(s.ops), Severity: sev})
	}
	state := func(p string, created bool) *fileState {
		s := live[p]
		if s == nil {
			s = &fileState{origin: p, created: created}
			live[p] = s
		}
		return s
	}
	for _, e := range events {
		in, inTarget := under(e.Path, roots), e.Op == OpRename && under(e.Target, roots)
		if !in && !inTarget {
			continue
		}
		switch e.Op {
		case OpCreate, OpWrite:
			s := state(e.Path, e.Op == OpCreate)
			s.note(e.Op)
			if isManifest(e.Path) {
				emit(EraseManifest, s, High)
			}
		case OpExec:
			if s := live[e.Path]; s != nil && s.created {
				s.executed = true
				s.note(OpExec)
			}
		case OpDelete:
			s := state(e.Path, false)
			s.note(OpDelete)
			delete(live, e.Path)
			switch {
			case s.created && s.executed:
				emit(EraseDropped, s, High)
			case s.created:
				emit(EraseTransient, s, Low)
			default:
				emit(EraseExisting, s, Medium)
			}
		case OpRename:
			s := state(e.Path, false)
			s.note(OpRename + " " + e.Target)
			delete(live, e.Path)
			live[e.Target] = s
			if isManifest(e.Target) {
				emit(EraseManifest, s, High)
			}
		}
	}
	slices.SortFunc(out, func(a, b Erasure) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Kind, b.Kind), slices.Compare(a.Ops, b.Ops))
	})
	return slices.CompactFunc(out, func(a, b Erasure) bool { return a.Path == b.Path && a.Kind == b.Kind }), omitted
}

// under reports whether p is one of roots or below one.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if r == "" || p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

func isManifest(p string) bool { return path.Base(p) == "package.json" }
