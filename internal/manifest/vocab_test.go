package manifest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestVocabularyDistinct checks every const block of the package: a string
// constant may not be empty, and two constants of one block (one
// vocabulary) may not share a value, or a reader could not tell them apart.
// Blocks may share words (file category "runtime", connection category
// "runtime"): they are read from different fields.
func TestVocabularyDistinct(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	blocks := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			blocks++
			seen := map[string]string{}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					val, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					id := vs.Names[i].Name
					if val == "" {
						t.Errorf("%s: %s is empty", fset.Position(lit.Pos()), id)
					}
					if other, dup := seen[val]; dup {
						t.Errorf("%s: %s has the value %q of %s", fset.Position(lit.Pos()), id, val, other)
					}
					seen[val] = id
				}
			}
		}
	}
	if blocks < 10 {
		t.Fatalf("found %d const blocks; the scan is broken", blocks)
	}
}

func TestPhaseRank(t *testing.T) {
	order := []string{PhaseInstall, PhaseStartup, PhaseCallPrefix + "a", PhasePromptPrefix + "p", PhaseReadPrefix + "file:///x", PhaseIdle, "unknown"}
	for i := 1; i < len(order); i++ {
		if PhaseRank(order[i-1]) >= PhaseRank(order[i]) {
			t.Errorf("PhaseRank(%q) = %d, not before PhaseRank(%q) = %d", order[i-1], PhaseRank(order[i-1]), order[i], PhaseRank(order[i]))
		}
	}
}
