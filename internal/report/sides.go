package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Row states of a side-by-side comparison.
const (
	rowSame    = "same"
	rowAdded   = "added"
	rowRemoved = "removed"
	rowChanged = "changed"
)

// sideRow is one thing in the before/after view: present before, after,
// or both. Words is set for changed text (a word diff).
type sideRow struct {
	State  string
	Before string
	After  string
	Words  []wordSpan
}

// wordSpan is a run of words of a word diff: kept, inserted or deleted.
type wordSpan struct {
	Op   string // same, added, removed
	Text string
}

// sideArea is one area of the view (hosts, requests, processes, files,
// tools) with its changed rows first and how many rows stayed the same.
type sideArea struct {
	Title   string
	Changed []sideRow
	Same    []sideRow
}

// sideBySide compares the areas a reviewer of a new release reads: where
// it connects, what it sends, what it runs, what it touches, what its
// tools say. old may be nil (no baseline): everything is then new.
func sideBySide(old, new *m.Manifest) []sideArea {
	if new == nil {
		return nil
	}
	areas := []struct {
		title string
		items func(*m.Manifest) []string
	}{
		{"Hosts", hostItems}, {"Requests (method, host, path and field names)", requestItems},
		{"Processes", processItems}, {"Files", fileItems},
	}
	var out []sideArea
	for _, a := range areas {
		var before []string
		if old != nil {
			before = a.items(old)
		}
		out = append(out, setArea(a.title, before, a.items(new)))
	}
	return append(out, toolArea(old, new))
}

// setArea compares two sets of one-line items.
func setArea(title string, before, after []string) sideArea {
	area := sideArea{Title: title}
	for _, k := range union(before, after) {
		inB, inA := slices.Contains(before, k), slices.Contains(after, k)
		switch {
		case inB && inA:
			area.Same = append(area.Same, sideRow{State: rowSame, Before: k, After: k})
		case inA:
			area.Changed = append(area.Changed, sideRow{State: rowAdded, After: k})
		default:
			area.Changed = append(area.Changed, sideRow{State: rowRemoved, Before: k})
		}
	}
	return area
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// toolArea compares tool descriptions by name, with a word diff of each
// changed one.
func toolArea(old, new *m.Manifest) sideArea {
	desc := func(man *m.Manifest) map[string]string {
		out := map[string]string{}
		if man != nil {
			for _, t := range man.Tools {
				out[textsafe.Line(t.Name, 200)] = textsafe.Clean(textsafe.Clip(t.Description, 4000))
			}
		}
		return out
	}
	before, after := desc(old), desc(new)
	area := sideArea{Title: "Tool descriptions"}
	for _, name := range union(keys(before), keys(after)) {
		b, inB := before[name]
		a, inA := after[name]
		row := sideRow{Before: cond(inB, name+": "+b), After: cond(inA, name+": "+a)}
		switch {
		case inB && inA && a == b:
			row.State = rowSame
			area.Same = append(area.Same, row)
			continue
		case inB && inA:
			row.State, row.Words = rowChanged, append([]wordSpan{{Op: rowSame, Text: name + ": "}}, wordDiff(b, a)...)
		case inA:
			row.State = rowAdded
		default:
			row.State = rowRemoved
		}
		area.Changed = append(area.Changed, row)
	}
	return area
}

func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func keys(mp map[string]string) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	return out
}

var reWord = regexp.MustCompile(`\S+|\s+`)

// wordDiff diffs two texts word by word: each distinct word (and each run
// of space) becomes one rune, so the diff never splits a word.
func wordDiff(a, b string) []wordSpan {
	ids := map[string]rune{}
	var words []string
	encode := func(s string) []rune {
		var out []rune
		for _, w := range reWord.FindAllString(s, -1) {
			id, ok := ids[w]
			if !ok {
				id = rune(len(words))
				ids[w] = id
				words = append(words, w)
			}
			out = append(out, id)
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	var out []wordSpan
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		var sb strings.Builder
		for _, r := range d.Text {
			sb.WriteString(words[r])
		}
		op := map[diffmatchpatch.Operation]string{diffmatchpatch.DiffEqual: rowSame, diffmatchpatch.DiffInsert: rowAdded, diffmatchpatch.DiffDelete: rowRemoved}[d.Type]
		out = append(out, wordSpan{Op: op, Text: sb.String()})
	}
	return out
}

// hostItems are the hosts a version contacted, each with its relation to
// the server.
func hostItems(man *m.Manifest) []string {
	var out []string
	for _, u := range policy.HostUses(man) {
		out = append(out, textsafe.Line(u.Host, 300)+" ("+u.Relation+")")
	}
	return out
}

func requestItems(man *m.Manifest) []string {
	var out []string
	for _, ph := range man.Phases {
		for _, r := range ph.Requests {
			s := fmt.Sprintf("%s %s%s", r.Method, r.Host, r.Path)
			if f := slices.Concat(r.QueryKeys, r.BodyFields); len(f) > 0 {
				s += " fields " + strings.Join(f, ",")
			}
			if len(r.HeaderNames) > 0 {
				s += " headers " + strings.Join(r.HeaderNames, ",")
			}
			out = append(out, textsafe.Line(s, 600))
		}
	}
	return out
}

func processItems(man *m.Manifest) []string {
	var out []string
	for _, ph := range man.Phases {
		for _, p := range ph.Processes {
			out = append(out, textsafe.Line(strings.Join(p.Argv, " "), 600))
		}
	}
	return out
}

func fileItems(man *m.Manifest) []string {
	var out []string
	for _, ph := range man.Phases {
		for _, f := range ph.Files {
			s := f.Access + " " + f.Path
			if f.Target != "" {
				s += " -> " + f.Target
			}
			out = append(out, textsafe.Line(s, 600))
		}
	}
	return out
}
