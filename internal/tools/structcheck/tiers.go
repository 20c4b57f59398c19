package main

import (
	"fmt"
	"go/ast"
	"slices"
	"strings"
)

// engineHelpers are the testenv functions that reach a Docker engine or a
// browser (each skips under -short, testenv.EndToEnd), and sandbox.Connect,
// which opens an engine directly.
var engineHelpers = map[string][]string{
	"testenv": {"Engine", "Image", "Installer", "SinkBinary", "Leftovers", "BuildImage", "Chromium", "LoadPage", "Browse"},
	"sandbox": {"Connect"},
}

// checkTiers names the test files of a package that reach an engine or a
// browser, directly or through a test helper of the same package that
// does, without being *_e2e_test.go files. The package testenv itself is
// the gate and is left out.
func checkTiers(p *pkgFiles) []string {
	if strings.HasSuffix(p.dir, "internal/testenv") {
		return nil
	}
	// Test helpers that reach an engine, to a fixed point: a helper
	// calling a helper that calls testenv.Image counts.
	// Keyed by the test package's name: package x and package x_test
	// are two packages in one directory.
	reach := map[string]map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, tf := range p.tests {
			pkg := tf.f.Name.Name
			if reach[pkg] == nil {
				reach[pkg] = map[string]bool{}
			}
			for _, d := range tf.f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil || reach[pkg][fd.Name.Name] || fd.Recv != nil {
					continue
				}
				if reachesEngine(fd.Body, reach[pkg]) {
					reach[pkg][fd.Name.Name] = true
					changed = true
				}
			}
		}
	}
	var out []string
	for _, tf := range p.tests {
		if strings.HasSuffix(tf.rel, "_e2e_test.go") {
			continue
		}
		for _, d := range tf.f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Body != nil && reachesEngine(fd.Body, reach[tf.f.Name.Name]) {
				out = append(out, fmt.Sprintf("%s: %s reaches a Docker engine or a browser: end-to-end tests live in *_e2e_test.go files", tf.rel, fd.Name.Name))
			}
		}
	}
	return out
}

// reachesEngine reports whether body calls an engine helper or a function
// already known to reach one.
func reachesEngine(body ast.Node, reach map[string]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && slices.Contains(engineHelpers[id.Name], x.Sel.Name) {
				found = true
			}
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && reach[id.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}
