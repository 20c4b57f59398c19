package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

var layout = classify.Layout{Home: "/home/dev", Workspace: "/home/dev/workspace", PkgRoot: "/srv/app/node_modules/pkg",
	AppRoot: "/srv/app", Runtime: "/usr/local/bin/node"}

// examples turns a table pattern into paths it must catch: the pattern
// itself with its wildcards filled in, a file below it, and for "**" rows
// the same a few directories deeper.
func examples(pattern string) []string {
	fill := func(p string) string {
		p = strings.ReplaceAll(p, "**", "sub/dir")
		return strings.ReplaceAll(p, "*", "x")
	}
	out := []string{fill(pattern), fill(pattern) + "/file"}
	if strings.HasPrefix(pattern, "**/") {
		out = append(out, "<workspace>/"+fill(pattern), "~/.local/lib/"+fill(pattern))
	}
	return out
}

// TestPersistenceTableRows: every row of the persistence table, written
// directly, created by a rename or link, or made a directory, is a
// critical finding of its kind; and its category survives the trip
// through the classifier's normalization of the absolute path.
func TestPersistenceTableRows(t *testing.T) {
	for _, row := range classify.Persistence {
		kind := KindPersistence
		if row.Category == m.CatAIConfig {
			kind = KindAIConfig
		}
		for _, ex := range examples(row.Pattern) {
			t.Run(ex, func(t *testing.T) {
				if cat := layout.Category(ex, false, true); cat != row.Category {
					t.Fatalf("write to %s: category %q, want %q (row %s)", ex, cat, row.Category, row.Pattern)
				}
				for _, access := range []string{m.AccessWrite, m.AccessCreate, m.AccessDirWrite} {
					f, ok := fileFinding(m.PhaseStartup, m.FileAccess{Path: ex, Access: access, Category: row.Category, Result: m.ResultOK})
					if !ok || f.Severity != Critical || f.Kind != kind {
						t.Errorf("%s %s: %+v, want a critical %s finding", access, ex, f, kind)
					}
				}
				abs := strings.Replace(strings.Replace(ex, "<workspace>", layout.Workspace, 1), "~", layout.Home, 1)
				if norm := layout.Normalize(abs); strings.HasPrefix(ex, "~") || strings.HasPrefix(ex, "<workspace>") {
					if norm != ex {
						t.Errorf("Normalize(%s) = %s, want %s", abs, norm, ex)
					}
				}
			})
		}
	}
}

// TestPersistenceControls: what the table must not catch, and how other
// home files are judged.
func TestPersistenceControls(t *testing.T) {
	for _, tc := range []struct {
		path   string
		write  bool
		sev    Severity // -1: no finding
		reason string
	}{
		{"~/notes.txt", true, Low, "an ordinary home file"},
		{"~/.cache/some-tool/state.json", true, Low, "a program's cache: an observation"},
		{"~/.my-tool-rc", true, High, "another program's rc file"},
		{"<workspace>/notes.md", true, -1, "an ordinary workspace file"},
		{"<workspace>/src/index.js", true, -1, "an ordinary workspace file"},
		{"<workspace>/package.json", false, -1, "reading a project's scripts is no persistence"},
		{"<workspace>/CLAUDE.md", false, -1, "a file server reading the rules file"},
		{"<workspace>/.git/HEAD", true, -1, "git state, not configuration"},
		{"~/.local/share/app/data.db", true, Low, "a program's data: an observation"},
		{"~/.bashrc", false, Low, "reading a shell startup file"},
		{"~/.claude/settings.json", false, High, "reading an AI client's settings"},
		{"<pkg>/dist/sitecustomize.txt", true, Low, "the server's own files"},
	} {
		access := m.AccessRead
		if tc.write {
			access = m.AccessWrite
		}
		cat := layout.Category(tc.path, false, tc.write)
		f, ok := judgeFile(m.PhaseStartup, m.FileAccess{Path: tc.path, Access: access, Category: cat, Result: m.ResultOK})
		switch {
		case tc.sev < 0 && ok:
			t.Errorf("%s %s (%s): unexpected finding %+v", access, tc.path, tc.reason, f)
		case tc.sev >= 0 && (!ok || f.Severity != tc.sev):
			t.Errorf("%s %s (%s): finding %+v (%v), want %s", access, tc.path, tc.reason, f, ok, tc.sev)
		}
	}
}

// TestPersistenceTableDocumented: docs/policy.md carries the same table,
// row for row.
func TestPersistenceTableDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, r := range classify.Persistence {
		fmt.Fprintf(&want, "| `%s` | %s | %s |\n", r.Pattern, docCategory(r), r.Why)
	}
	if !strings.Contains(string(b), want.String()) {
		t.Errorf("docs/policy.md lacks the persistence table; it must contain:\n%s", want.String())
	}
}

func docCategory(r classify.PersistRow) string {
	kind := "persistence"
	if r.Category == m.CatAIConfig {
		kind = "AI client"
	}
	if r.Reads {
		kind += ", reads too"
	}
	return kind
}

// judgeFile is how Evaluate judges one file access of a server with no
// names of its own: by the place, then by the category.
func judgeFile(phase string, f m.FileAccess) (Finding, bool) {
	pe := &phaseEval{man: &m.Manifest{}, phase: m.Phase{Name: phase}, own: map[string]bool{}}
	if fd, ok := pe.loadFinding(f); ok {
		return fd, true
	}
	return fileFinding(phase, f)
}
