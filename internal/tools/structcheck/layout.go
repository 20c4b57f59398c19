package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Limits of the conductor: internal/audit only conducts (start, drive,
// exercise, idle, collect, classify); what it conducts lives in packages of
// its own (docs/architecture.md).
const (
	auditDir       = "internal/audit"
	maxAuditFiles  = 16
	maxAuditLines  = 2600 // non-blank lines of its non-test files
	maxAuditFileLn = 350
	// maxKindUses bounds the places outside internal/target that test a
	// target's kind: ecosystem knowledge lives in target's table.
	maxKindUses = 3
)

// forbiddenImports are package dependencies the structure rules out.
var forbiddenImports = map[string][]string{
	"internal/check": {"github.com/mcp-audit/mcp-audit/internal/batch"},
}

type parsedFile struct {
	rel string
	f   *ast.File
}

// pkgFiles are the parsed files of one directory.
type pkgFiles struct {
	dir   string
	files []parsedFile
	tests []parsedFile
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkLayout holds internal/audit to its limits and every package to the
// dependencies it must not have.
func checkLayout(fset *token.FileSet, p *pkgFiles) []string {
	var out []string
	for _, pf := range p.files {
		for _, imp := range pf.f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(forbiddenImports[p.dir], path) {
				out = append(out, fmt.Sprintf("%s: imports %s (%s must not depend on it)", pf.rel, path, p.dir))
			}
		}
	}
	if p.dir != auditDir {
		return out
	}
	if len(p.files) > maxAuditFiles {
		out = append(out, fmt.Sprintf("%s: %d files (max %d: the conductor only conducts)", p.dir, len(p.files), maxAuditFiles))
	}
	total := 0
	for _, pf := range p.files {
		n := fset.File(pf.f.Pos()).LineCount()
		if n > maxAuditFileLn {
			out = append(out, fmt.Sprintf("%s: file is %d lines (max %d in %s)", pf.rel, n, maxAuditFileLn, p.dir))
		}
		total += nonBlank(fset.File(pf.f.Pos()).Name())
	}
	if total > maxAuditLines {
		out = append(out, fmt.Sprintf("%s: %d non-blank lines (max %d)", p.dir, total, maxAuditLines))
	}
	return out
}

func nonBlank(name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// reSpecLiteral is a target spec built by hand: a literal that ends in an
// ecosystem's prefix ("npm:" + name) or formats one ("npm:%s"). Only
// literals that build a string count (an operand of +, a format):
// parsing another format that shares the prefix (npm's own "npm:name@1"
// dependency aliases) builds no target.
var reSpecLiteral = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])(npm|pypi|oci):(%[a-z]|$)`)

// checkKinds counts the tests of a target's kind outside internal/target
// (uses of target.Kind… constants) and finds target specs built by hand.
func checkKinds(pkgs map[string]*pkgFiles) []string {
	var out, uses []string
	for _, dir := range sortedKeys(pkgs) {
		if dir == "internal/target" || strings.HasPrefix(dir, "internal/tools/") {
			continue
		}
		for _, pf := range pkgs[dir].files {
			spec := func(e ast.Expr) {
				x, ok := e.(*ast.BasicLit)
				if !ok || x.Kind != token.STRING {
					return
				}
				if s, err := strconv.Unquote(x.Value); err == nil && reSpecLiteral.MatchString(s) {
					out = append(out, fmt.Sprintf("%s: target spec built by hand (%q): use target's ecosystem table", pf.rel, s))
				}
			}
			ast.Inspect(pf.f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "target" && strings.HasPrefix(x.Sel.Name, "Kind") {
						uses = append(uses, pf.rel+": target."+x.Sel.Name)
					}
				case *ast.BinaryExpr:
					if x.Op == token.ADD {
						spec(x.X)
						spec(x.Y)
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && strings.Contains(sel.Sel.Name, "printf") || ok && strings.HasSuffix(sel.Sel.Name, "Sprintf") {
						for _, a := range x.Args {
							spec(a)
						}
					}
				}
				return true
			})
		}
	}
	if len(uses) > maxKindUses {
		out = append(out, fmt.Sprintf("%d tests of a target's kind outside internal/target (max %d): %s", len(uses), maxKindUses, strings.Join(uses, ", ")))
	}
	return out
}
