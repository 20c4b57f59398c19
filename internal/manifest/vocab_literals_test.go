package manifest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vocabContexts maps the name a word is compared with or stored into
// (a field, variable or switch tag, lower-cased) to the vocabularies
// (constant name prefixes in this package) written there.
var vocabContexts = map[string][]string{
	"category": {"Conn", "Cat"},
	"how":      {"How"},
	"channel":  {"Channel"},
	"verdict":  {"Verdict"},
	"area":     {"Area"},
	"phase":    {"PhaseInstall", "PhaseStartup", "PhaseIdle"},
}

// vocabAnywhere are words distinctive enough to be flagged in any string
// literal, whatever they are compared with.
var vocabAnywhere = []string{"PhaseCallPrefix", "PhasePromptPrefix", "PhaseReadPrefix",
	"HowFileRead", "HowFileWrite", "HowFileDelete", "HowFileRename", "HowFileReadWitness", "HowMCPOutput",
	"ConnEgress", "ConnLoopback", "AreaServerRequest"}

// TestNoVocabularyLiterals keeps the vocabulary spelled in one place: no
// non-test file outside this package may compare with, switch on or store a
// raw literal of it where a constant of this package belongs. A new literal
// compiles; a typo in it is a policy rule that silently never fires.
func TestNoVocabularyLiterals(t *testing.T) {
	consts := packageStringConsts(t)
	words := func(prefixes ...string) map[string]string {
		out := map[string]string{}
		for name, val := range consts {
			for _, p := range prefixes {
				if strings.HasPrefix(name, p) {
					out[val] = name
				}
			}
		}
		return out
	}
	context := map[string]map[string]string{}
	for ctx, prefixes := range vocabContexts {
		context[ctx] = words(prefixes...)
	}
	anywhere := map[string]string{}
	for _, name := range vocabAnywhere {
		val, ok := consts[name]
		if !ok {
			t.Fatalf("vocabAnywhere names %s, which is not a constant here", name)
		}
		anywhere[val] = name
	}

	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") ||
				path == filepath.Join(root, "internal", "manifest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		return scanFile(t, path, context, anywhere)
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("scanned %d Go files; the walk is broken", files)
	}
}

// scanFile reports the vocabulary literals of one Go file: words of
// context[name] compared with or stored into something called name, and
// words of anywhere wherever they appear.
func scanFile(t *testing.T, path string, context map[string]map[string]string, anywhere map[string]string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	report := func(lit *ast.BasicLit, vocab map[string]string) {
		if lit == nil || lit.Kind != token.STRING {
			return
		}
		val, err := strconv.Unquote(lit.Value)
		if err != nil {
			return
		}
		if name, ok := vocab[val]; ok {
			t.Errorf("%s: literal %s; use manifest.%s", fset.Position(lit.Pos()), lit.Value, name)
		}
	}
	inContext := func(target ast.Expr, value ast.Expr) {
		if vocab, ok := context[strings.ToLower(exprName(target))]; ok {
			lit, _ := value.(*ast.BasicLit)
			report(lit, vocab)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BasicLit:
			report(n, anywhere)
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				inContext(n.X, n.Y)
				inContext(n.Y, n.X)
			}
		case *ast.SwitchStmt:
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					inContext(n.Tag, e)
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i := range n.Lhs {
					inContext(n.Lhs[i], n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					inContext(n.Names[i], n.Values[i])
				}
			}
		case *ast.KeyValueExpr:
			inContext(n.Key, n.Value)
		}
		return true
	})
	return nil
}

// exprName is the last name in a field, variable or call expression.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return exprName(e.X)
	case *ast.StarExpr:
		return exprName(e.X)
	case *ast.ParenExpr:
		return exprName(e.X)
	}
	return ""
}

// packageStringConsts reads this package's string constants by name.
func packageStringConsts(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, block := range stringConstBlocks(t) {
		for _, c := range block {
			out[c.name] = c.val
		}
	}
	return out
}
