package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBrowserFor: the variables only for a package that carries or
// declares a browser library, playwright's builds from its browsers.json
// (a revision that is not digits is dropped: the entrypoint makes the
// directories as root), and a configured variable is left alone.
func TestBrowserFor(t *testing.T) {
	const browsers = `{"browsers": [{"name": "chromium", "revision": "1247"}, {"name": "chromium-headless-shell", "revision": "1247"},
		{"name": "firefox", "revision": "1553"}, {"name": "chromium-tip-of-tree", "revision": "1400"}, {"name": "chromium", "revision": "1;rm -rf /"}]}`
	for _, tc := range []struct {
		name       string
		files      map[string]string
		env        bool
		playwright []string
	}{
		{"no browser library", map[string]string{"node_modules/pkg/package.json": `{"dependencies": {"zod": "3"}}`,
			"node_modules/zod/package.json": `{}`}, false, nil},
		{"a declared optional peer", map[string]string{"node_modules/pkg/package.json": `{"peerDependencies": {"puppeteer-core": ">=20"}}`}, true, nil},
		{"a nested puppeteer-core", map[string]string{"node_modules/pkg/package.json": `{}`,
			"node_modules/pkg/node_modules/puppeteer-core/package.json": `{}`}, true, nil},
		{"playwright", map[string]string{"node_modules/@playwright/mcp/package.json": `{}`,
			"node_modules/playwright-core/package.json": `{}`, "node_modules/playwright-core/browsers.json": browsers},
			true, []string{"chromium-1247", "chromium_headless_shell-1247"}},
		{"a hostile browsers.json", map[string]string{"node_modules/pkg/package.json": `{}`,
			"node_modules/playwright-core/package.json": `{}`, "node_modules/playwright-core/browsers.json": `{"browsers": [{"name": "chromium", "revision": "../../etc"}]}`},
			true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tc.files {
				full := filepath.Join(root, p)
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pkg := "node_modules/pkg"
			if tc.name == "playwright" {
				pkg = "node_modules/@playwright/mcp"
			}
			b := BrowserFor(root, pkg)
			if got := len(b.Env) > 0; got != tc.env {
				t.Errorf("variables set: %v, want %v", got, tc.env)
			}
			if diff := cmp.Diff(tc.playwright, b.Playwright); diff != "" {
				t.Errorf("playwright builds (-want +got):\n%s", diff)
			}
		})
	}
	b := Browser{Env: []string{"PUPPETEER_EXECUTABLE_PATH=" + ChromiumPath, "CHROME_PATH=" + ChromiumPath}}
	got := b.WithEnv([]string{"HOME=/home/dev", "CHROME_PATH=/opt/mine/chrome"})
	want := []string{"HOME=/home/dev", "CHROME_PATH=/opt/mine/chrome", "PUPPETEER_EXECUTABLE_PATH=" + ChromiumPath}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithEnv (-want +got):\n%s", diff)
	}
}
