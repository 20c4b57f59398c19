// Command structcheck holds the code to the structure of the house style
// (docs/architecture.md), so that what a review once fixed stays fixed:
//
//   - sizes: no non-test function longer than 100 lines (from its func line
//     to its closing brace), no non-test file in internal/cli longer than
//     250 lines, and internal/audit (the conductor) within its file, line
//     and per-file limits (layout.go);
//   - test tiers: a test file that reaches a Docker engine or a browser,
//     directly or through a helper of its package, is named *_e2e_test.go
//     (tiers.go), so `go test -short` is the unit tier by construction;
//   - dependencies: check does not import batch, and ecosystem knowledge
//     stays in internal/target (layout.go).
//
// It prints one line per problem and exits 1 if there is any.
//
// Usage: go run ./internal/tools/structcheck [ROOT]
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limits, in lines.
const (
	maxFuncLines   = 100
	maxCLIFileLine = 250
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	problems, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "structcheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// check walks the module under root, skipping test files, testdata and
// hidden or cache directories.
func check(root string) ([]string, error) {
	var problems []string
	fset := token.NewFileSet()
	pkgs := map[string]*pkgFiles{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if pkgs[dir] == nil {
			pkgs[dir] = &pkgFiles{dir: dir}
		}
		if strings.HasSuffix(name, "_test.go") {
			pkgs[dir].tests = append(pkgs[dir].tests, parsedFile{rel: rel, f: f})
			return nil
		}
		pkgs[dir].files = append(pkgs[dir].files, parsedFile{rel: rel, f: f})
		problems = append(problems, checkFile(fset, f, root, path)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, dir := range sortedKeys(pkgs) {
		p := pkgs[dir]
		problems = append(problems, checkTiers(p)...)
		problems = append(problems, checkLayout(fset, p)...)
	}
	return append(problems, checkKinds(pkgs)...), nil
}

func checkFile(fset *token.FileSet, f *ast.File, root, path string) []string {
	var out []string
	rel, _ := filepath.Rel(root, path)
	if strings.HasPrefix(filepath.ToSlash(rel), "internal/cli/") {
		if n := fset.File(f.Pos()).LineCount(); n > maxCLIFileLine {
			out = append(out, fmt.Sprintf("%s: file is %d lines (max %d in internal/cli)", rel, n, maxCLIFileLine))
		}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Type.Func), fset.Position(fd.Body.Rbrace)
		if n := end.Line - start.Line + 1; n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: func %s is %d lines (max %d)", rel, start.Line, funcName(fd), n, maxFuncLines))
		}
	}
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
