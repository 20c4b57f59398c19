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
	blocks := stringConstBlocks(t)
	if len(blocks) < 10 {
		t.Fatalf("found %d const blocks; the scan is broken", len(blocks))
	}
	for _, block := range blocks {
		seen := map[string]string{}
		for _, c := range block {
			if c.val == "" {
				t.Errorf("%s: %s is empty", c.pos, c.name)
			}
			if other, dup := seen[c.val]; dup {
				t.Errorf("%s: %s has the value %q of %s", c.pos, c.name, c.val, other)
			}
			seen[c.val] = c.name
		}
	}
}

// stringConst is a string constant of this package.
type stringConst struct {
	name, val string
	pos       token.Position
}

// stringConstBlocks reads this package's string constants, one slice per
// const block.
func stringConstBlocks(t *testing.T) [][]stringConst {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]stringConst
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				out = append(out, blockConsts(t, fset, g))
			}
		}
	}
	return out
}

func blockConsts(t *testing.T, fset *token.FileSet, g *ast.GenDecl) []stringConst {
	var out []stringConst
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
			out = append(out, stringConst{vs.Names[i].Name, val, fset.Position(lit.Pos())})
		}
	}
	return out
}

func TestPhaseRank(t *testing.T) {
	order := []string{PhaseInstall, PhaseStartup, PhaseCallPrefix + "a", PhasePromptPrefix + "p", PhaseReadPrefix + "file:///x", PhaseIdle, "unknown"}
	for i := 1; i < len(order); i++ {
		if PhaseRank(order[i-1]) >= PhaseRank(order[i]) {
			t.Errorf("PhaseRank(%q) = %d, not before PhaseRank(%q) = %d", order[i-1], PhaseRank(order[i-1]), order[i], PhaseRank(order[i]))
		}
	}
}
