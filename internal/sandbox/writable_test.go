package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNpxDir: the directory npx itself uses (libnpmexec: the first 16 hex
// digits of the SHA-512 of the spec), e.g. ~/.npm/_npx/b388654678d519d9
// for "npx prettier".
func TestNpxDir(t *testing.T) {
	for spec, want := range map[string]string{
		"prettier":                            "/home/dev/.npm/_npx/b388654678d519d9",
		"@modelcontextprotocol/server-memory": "/home/dev/.npm/_npx/15b07286cbcc3329",
	} {
		if got := NpxDir("/home/dev", spec); got != want {
			t.Errorf("NpxDir(%q) = %s, want %s", spec, got, want)
		}
	}
}

// TestNpxWritable: the copy is sized for tmpfs (whole pages per file,
// a page per directory and link) and runs from the npx directory.
func TestNpxWritable(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "node_modules", "pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pkg, "index.js"), make([]byte, 5000), 0o644)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte("{}"), 0o644)
	os.Symlink("index.js", filepath.Join(pkg, "main.js"))
	w, err := NpxWritable("/home/dev", "pkg", "/srv/mcp", root)
	if err != nil {
		t.Fatal(err)
	}
	// 3 directories, 3 entries, 2 pages of index.js, 1 of package.json.
	want := &Writable{Src: "/srv/mcp", Dst: NpxDir("/home/dev", "pkg"), Bytes: (3 + 3 + 2 + 1) * 4096}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := NpxWritable("/home/dev", "pkg", "/srv/mcp", filepath.Join(root, "missing")); err == nil {
		t.Error("a missing tree must be an error")
	}
}

// TestWritableSpec: the copy's paths reach the entrypoint and the home's
// tmpfs grows by its size; without one nothing changes.
func TestWritableSpec(t *testing.T) {
	spec := Spec{User: "dev", UID: 1000, Home: "/home/dev", Writable: &Writable{Src: "/srv/mcp", Dst: "/home/dev/.npm/_npx/x", Bytes: 1 << 20},
		Playwright: []string{"chromium-1", "chromium_headless_shell-1"}}
	lim := spec.Limits.withDefaults()
	env := entryEnv(spec, lim)
	for _, kv := range []string{"MCP_AUDIT_WRITABLE_SRC=/srv/mcp", "MCP_AUDIT_WRITABLE_DST=/home/dev/.npm/_npx/x",
		"MCP_AUDIT_PLAYWRIGHT=chromium-1 chromium_headless_shell-1"} {
		if !slices.Contains(env, kv) {
			t.Errorf("entry environment lacks %s", kv)
		}
	}
	got := hostConfig(spec, lim, "none", "P").Tmpfs["/home/dev"]
	if want := "rw,exec,nosuid,nodev,size=269484032,uid=1000,gid=1000,mode=0755"; got != want {
		t.Errorf("home tmpfs %q, want %q", got, want)
	}
	spec.Writable, spec.Playwright = nil, nil
	for _, kv := range entryEnv(spec, lim) {
		if strings.HasPrefix(kv, "MCP_AUDIT_WRITABLE") || strings.HasPrefix(kv, "MCP_AUDIT_PLAYWRIGHT") {
			t.Errorf("unexpected %s", kv)
		}
	}
}
