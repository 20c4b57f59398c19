package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTiers: a unit-named test file that reaches the engine through a
// helper of its package is reported; the same test in an _e2e_test.go
// file, and a test in another package with a local variable of the
// helper's name, are not.
func TestTiers(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"internal/x/x.go":             "package x\n",
		"internal/x/helper_test.go":   "package x_test\n\nimport \"testing\"\n\nfunc start(t *testing.T) { testenv.Image(t) }\n",
		"internal/x/bad_test.go":      "package x_test\n\nimport \"testing\"\n\nfunc TestBad(t *testing.T) { start(t) }\n",
		"internal/x/good_e2e_test.go": "package x_test\n\nimport \"testing\"\n\nfunc TestGood(t *testing.T) { start(t) }\n",
		"internal/x/inner_test.go":    "package x\n\nimport \"testing\"\n\nfunc TestInner(t *testing.T) { start := func(*testing.T) {}; start(t) }\n",
	})
	problems, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	if !strings.Contains(got, "bad_test.go: TestBad reaches") || strings.Contains(got, "good_e2e") || strings.Contains(got, "TestInner") {
		t.Errorf("problems:\n%s", got)
	}
}

// TestLayout: check importing batch, a hand-built spec and too many kind
// tests are each reported.
func TestLayout(t *testing.T) {
	root := t.TempDir()
	kinds := "package y\n\nfunc f(k string) bool { return k == target.KindNPM || k == target.KindPyPI || k == target.KindOCI || k == target.KindDir }\n"
	write(t, root, map[string]string{
		"internal/check/c.go":  "package check\n\nimport _ \"github.com/mcp-audit/mcp-audit/internal/batch\"\n",
		"internal/y/y.go":      kinds,
		"internal/z/z.go":      "package z\n\nfunc g(n string) string { return \"npm:\" + n }\n",
		"internal/target/t.go": "package target\n\nfunc h(n string) string { return \"npm:\" + n }\n",
	})
	problems, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{"internal/check/c.go: imports", "internal/z/z.go: target spec built by hand", "4 tests of a target's kind"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "internal/target/t.go") {
		t.Errorf("target may build its own specs:\n%s", got)
	}
}
