package deptree

import (
	"fmt"
	"slices"
	"strings"
)

func byKey(dists []PyDist) map[string][]PyDist {
	out := map[string][]PyDist{}
	for _, d := range dists {
		out[d.Key] = append(out[d.Key], d)
	}
	return out
}

func comparePython(old, new *Tree) []Change {
	var out []Change
	before, after := byKey(old.Python), byKey(new.Python)
	for _, key := range sortedKeys(after) {
		now := after[key]
		was, ok := before[key]
		if !ok {
			parts := []string{pyVersions(now)}
			if b := pyBins(now); len(b) > 0 {
				parts = append(parts, "scripts "+strings.Join(b, ", "))
			}
			if h := ownedHooks(new.Hooks, key); h != "" {
				parts = append(parts, "start-up hook "+h)
			}
			out = append(out, Change{Op: Added, Kind: ChangeDependency, Ecosystem: PyPI, Subject: key,
				Detail: clip(strings.Join(parts, "; ")), Severity: Info})
			continue
		}
		out = append(out, changedPython(key, was, now)...)
	}
	for _, key := range sortedKeys(before) {
		if _, ok := after[key]; !ok {
			out = append(out, Change{Op: Removed, Kind: ChangeDependency, Ecosystem: PyPI, Subject: key,
				Detail: pyVersions(before[key]), Severity: Info})
		}
	}
	return out
}

func changedPython(key string, was, now []PyDist) []Change {
	var out []Change
	add := func(kind string, sev Severity, detail string) {
		out = append(out, Change{Op: Changed, Kind: kind, Ecosystem: PyPI, Subject: key, Detail: clip(detail), Severity: sev})
	}
	if a, b := pyVersions(was), pyVersions(now); a != b {
		add(ChangeVersion, Info, a+" → "+b)
	}
	for _, n := range now {
		for _, w := range was {
			if w.Version == n.Version && w.RecordDigest != "" && n.RecordDigest != "" && w.RecordDigest != n.RecordDigest {
				add(ChangeIntegrity, Critical, n.Version+": RECORD "+w.RecordDigest+" → "+n.RecordDigest)
			}
		}
	}
	if gained := newItems(pyBins(was), pyBins(now)); len(gained) > 0 {
		add(ChangeBin, Low, "gained script "+strings.Join(gained, ", "))
	}
	return out
}

func pyVersions(ds []PyDist) string {
	var v []string
	for _, d := range ds {
		v = append(v, d.Version)
	}
	slices.Sort(v)
	return strings.Join(slices.Compact(v), ", ")
}

// pyBins are the commands a distribution installs: its entry points and
// the files RECORD puts in the scripts directory.
func pyBins(ds []PyDist) []string {
	var out []string
	for _, d := range ds {
		for _, e := range d.EntryPoints {
			out = append(out, e.Name)
		}
		out = append(out, d.Bins...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ownedHooks names the executable hooks whose RECORD owner is key.
func ownedHooks(hooks []Hook, key string) string {
	var out []string
	for _, h := range hooks {
		if h.Owner == key && h.Exec {
			out = append(out, h.Path)
		}
	}
	return strings.Join(out, ", ")
}

// compareHooks: a hook that runs code and is new, or whose executable
// lines changed (or that newly runs code), is high; the rest is info.
func compareHooks(old, new []Hook) []Change {
	var out []Change
	before := map[string]Hook{}
	for _, h := range old {
		before[h.Path] = h
	}
	after := map[string]bool{}
	for _, h := range new {
		after[h.Path] = true
		c := Change{Kind: ChangeHook, Ecosystem: PyPI, Subject: h.Path, Detail: hookDetail(h), Severity: Info}
		w, ok := before[h.Path]
		switch {
		case !ok:
			c.Op = Added
		case w.Digest == h.Digest:
			continue
		default:
			c.Op = Changed
			if h.Exec && w.Exec && slices.Equal(w.Lines, h.Lines) && w.ExecLines == h.ExecLines && h.Kind == HookPth {
				c.Detail = "content changed, executable lines unchanged; " + c.Detail
				out = append(out, c)
				continue
			}
		}
		if h.Exec {
			c.Severity = High
		}
		out = append(out, c)
	}
	for _, h := range old {
		if !after[h.Path] {
			out = append(out, Change{Op: Removed, Kind: ChangeHook, Ecosystem: PyPI, Subject: h.Path, Detail: hookDetail(h), Severity: Info})
		}
	}
	return out
}

// hookDetail describes a hook for a change or a finding.
func hookDetail(h Hook) string {
	var parts []string
	switch {
	case h.Kind != HookPth:
		parts = append(parts, h.Kind+" module: imported at every interpreter start")
	case h.Exec:
		parts = append(parts, fmt.Sprintf("%d line(s) executed at every interpreter start: %s", h.ExecLines, strings.Join(h.Lines, " | ")))
	default:
		parts = append(parts, "path entries only")
	}
	if h.Owner != "" {
		parts = append(parts, "from "+h.Owner)
	} else {
		parts = append(parts, "listed in no RECORD")
	}
	if h.RecordMismatch {
		parts = append(parts, "content differs from its RECORD hash")
	}
	return clip(strings.Join(parts, "; "))
}

// StartupHooks are the hooks of t that run code at every interpreter
// start. A single audit lists each (low: setuptools' distutils-precedence
// and editable installs ship such .pth files); a comparison makes a new or
// changed one high (Compare).
func (t *Tree) StartupHooks() []Hook {
	if t == nil {
		return nil
	}
	var out []Hook
	for _, h := range t.Hooks {
		if h.Exec {
			out = append(out, h)
		}
	}
	return out
}

// HookDetail is the evidence line for a hook's finding.
func HookDetail(h Hook) string { return hookDetail(h) }
