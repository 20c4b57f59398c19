package diff

import (
	"regexp"

	"github.com/sergi/go-diff/diffmatchpatch"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// toolChange is a tool whose digest changed: its description or title
// as a word diff, or its input schema.
func toolChange(o, t m.Tool) Change {
	c := Change{Op: Changed, Area: m.AreaTool, Subject: t.Name}
	schema := string(m.CanonicalJSON(o.InputSchema)) != string(m.CanonicalJSON(t.InputSchema))
	switch {
	case o.Description != t.Description:
		c = textChange(c, "description", o.Description, t.Description)
		if schema {
			c.Detail += "; input schema changed"
		}
	case schema:
		c.Field, c.Detail = "input schema", "input schema changed"
	case o.Title != t.Title:
		c = textChange(c, "title", o.Title, t.Title)
	}
	return c
}

// textChange fills c with a changed text: Detail "field: …[-a-]{+b+}…"
// for people, Field and Words for programs.
func textChange(c Change, field, a, b string) Change {
	c.Field, c.Detail, c.Words = field, field+": "+TextDiff(a, b), WordDiff(a, b)
	return c
}

// WordDiff is the word-level diff of two texts, whitespace folded.
func WordDiff(a, b string) []Word {
	dmp := diffmatchpatch.New()
	var out []Word
	for _, d := range dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false)) {
		w := Word{Op: "same", Text: d.Text}
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			w.Op = Removed
		case diffmatchpatch.DiffInsert:
			w.Op = Added
		}
		w.Text = spaces.ReplaceAllString(w.Text, " ")
		if w.Text != "" {
			out = append(out, w)
		}
	}
	return out
}

var spaces = regexp.MustCompile(`\s+`)
