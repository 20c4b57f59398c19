package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallWorkstation: the offline rootfs gets the launcher in place of
// Debian's wrapper, every alias pointing at it, the managed policy, and
// loses its documentation.
func TestInstallWorkstation(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"usr/bin/chromium", "usr/share/doc/git/copyright", "usr/share/locale/de/LC_MESSAGES/git.mo"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("debian's"), 0o755)
	}
	if err := installWorkstation(root); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, ChromiumPath))
	if err != nil || string(b) != string(chromiumLauncher) {
		t.Fatalf("launcher not installed: %v", err)
	}
	for _, a := range chromiumAliases {
		if l, err := os.Readlink(filepath.Join(root, a)); err != nil || l != ChromiumPath {
			t.Errorf("%s -> %q (%v), want %s", a, l, err, ChromiumPath)
		}
	}
	var pol map[string]any
	if b, err := os.ReadFile(filepath.Join(root, chromiumPolicyPath)); err != nil || json.Unmarshal(b, &pol) != nil {
		t.Fatalf("policy: %v", err)
	}
	for _, p := range []string{"usr/share/doc/git", "usr/share/locale/de/LC_MESSAGES"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s not trimmed", p)
		}
	}
}

// TestFlavorsAgree: the Dockerfile installs what the offline build does,
// the launcher runs the binary the classifier trusts with its own sandbox
// off, and the entrypoint links playwright's builds where the variable
// points.
func TestFlavorsAgree(t *testing.T) {
	df := string(dockerfile)
	for _, pkg := range strings.Split(workstationPackages, ",") {
		if !strings.Contains(df, " "+pkg) {
			t.Errorf("Dockerfile lacks package %s", pkg)
		}
	}
	for _, a := range append(chromiumAliases, ChromiumPath, chromiumPolicyPath) {
		if !strings.Contains(df, a) {
			t.Errorf("Dockerfile lacks %s", a)
		}
	}
	if !strings.Contains(string(chromiumLauncher), "exec "+ChromiumBinary+" --no-sandbox") {
		t.Error("the launcher must run " + ChromiumBinary + " with --no-sandbox")
	}
	if !strings.Contains(string(entryScript), `dir="`+PlaywrightBrowsers+`/$build"`) {
		t.Error("entry.sh must link playwright builds under " + PlaywrightBrowsers)
	}
}
