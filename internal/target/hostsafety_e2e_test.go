package target_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// hostileSetup makes a git repository whose package.json has a prepare
// script that writes a marker on the host, and puts an npm first on PATH
// that writes another marker if anything runs it. npm 10 runs a git
// dependency's prepare even under --ignore-scripts; neither marker may
// ever appear, whatever npm version the host has.
func hostileSetup(t *testing.T) (repo, prepared, npmRan, shimPath string) {
	t.Helper()
	dir := t.TempDir()
	prepared, npmRan = filepath.Join(dir, "prepare-ran"), filepath.Join(dir, "npm-ran")
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\ntouch "+npmRan+"\nexit 1\n"), 0o755)
	// After the fixtures are published (with the real npm, packing our
	// own files), every npm the code under test could run is this one.
	shimPath = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	repo = filepath.Join(dir, "gitdep")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "package.json"), []byte(`{"name":"gitdep","version":"1.0.0","scripts":{"prepare":"touch `+prepared+`"}}`), 0o644)
	os.WriteFile(filepath.Join(repo, "index.js"), []byte("module.exports = 1\n"), 0o644)
	if _, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qm", "x"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = repo
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return repo, prepared, npmRan, shimPath
}

func assertNoHostCode(t *testing.T, prepared, npmRan string) {
	t.Helper()
	for _, m := range []string{prepared, npmRan} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("package manager code ran on the host: %s exists", filepath.Base(m))
		}
	}
}

// TestGitDependencyNeverBuildsOnHost: a directory target, an npm target
// and an npm target whose dependency's dependency comes from git.
func TestGitDependencyNeverBuildsOnHost(t *testing.T) {
	reg := testenv.NewRegistry(t)
	repo, prepared, npmRan, shim := hostileSetup(t)
	gitSpec := "git+file://" + repo
	reg.Publish(t, map[string]string{"package.json": `{"name":"direct-git","version":"1.0.0","bin":{"direct-git":"index.js"},"dependencies":{"gitdep":"` + gitSpec + `"}}`, "index.js": "\n"})
	reg.Publish(t, map[string]string{"package.json": `{"name":"middle","version":"1.0.0","dependencies":{"gitdep":"` + gitSpec + `"}}`, "index.js": "\n"})
	reg.Publish(t, map[string]string{"package.json": `{"name":"deep-git","version":"1.0.0","bin":{"deep-git":"index.js"},"dependencies":{"middle":"1.0.0"}}`, "index.js": "\n"})
	local := t.TempDir()
	os.WriteFile(filepath.Join(local, "package.json"), []byte(`{"name":"local-git","version":"1.0.0","dependencies":{"gitdep":"`+gitSpec+`"}}`), 0o644)

	t.Setenv("PATH", shim)
	cfg := target.LoadNPMConfig(func(k string) string { return map[string]string{"NPM_CONFIG_REGISTRY": reg.URL}[k] })
	r, err := target.NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &target.Fetcher{Registry: r, CacheDir: t.TempDir(), Installer: testenv.Installer(t)}
	for _, spec := range []string{"npm:direct-git", "npm:deep-git", local} {
		s, err := target.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Fetch(context.Background(), s)
		if !errors.Is(err, target.ErrUnfetchable) || !strings.Contains(err.Error(), "git") {
			t.Errorf("%s: want a refusal that names git, got %v", spec, err)
		}
	}
	assertNoHostCode(t, prepared, npmRan)
}

// TestRegistryDependenciesInstallInContainer is the control: the same
// shape with registry dependencies installs, and still runs nothing on the
// host.
func TestRegistryDependenciesInstallInContainer(t *testing.T) {
	reg := testenv.NewRegistry(t)
	_, prepared, npmRan, shim := hostileSetup(t)
	reg.Publish(t, map[string]string{"package.json": `{"name":"leaf","version":"1.0.0","bin":{"leaf":"cli.js"},"scripts":{"prepare":"touch ` + prepared + `"}}`, "cli.js": "\n"})
	reg.Publish(t, map[string]string{"package.json": `{"name":"tree-top","version":"1.0.0","bin":{"tree-top":"index.js"},"dependencies":{"leaf":"^1.0.0"}}`, "index.js": "\n"})
	t.Setenv("PATH", shim)
	cfg := target.LoadNPMConfig(func(k string) string { return map[string]string{"NPM_CONFIG_REGISTRY": reg.URL}[k] })
	r, err := target.NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &target.Fetcher{Registry: r, CacheDir: t.TempDir(), Installer: testenv.Installer(t)}
	s, _ := target.ParseSpec("npm:tree-top")
	pkg, err := f.Fetch(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pkg.Root, "node_modules", "leaf", "cli.js")); err != nil {
		t.Errorf("dependency not installed: %v", err)
	}
	if l, err := os.Readlink(filepath.Join(pkg.Root, "node_modules", ".bin", "leaf")); err != nil || !strings.HasPrefix(l, "../") {
		t.Errorf("bin link not kept as a relative link: %q %v", l, err)
	}
	assertNoHostCode(t, prepared, npmRan)
}
