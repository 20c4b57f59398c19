package policy

import (
	"encoding/json"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestLoadPlaces: a write where another program loads or runs code later
// is high persistence, recognized by the place's shape; the server's own
// data directory, an install script's download cache, a path the call
// named, and ordinary data are not.
func TestLoadPlaces(t *testing.T) {
	man := &m.Manifest{
		Target: m.Target{Name: "@acme/okx-trade-mcp", Entry: []string{"node", "<pkg>/bin/okx-trade.js"}},
		Server: m.ServerInfo{Name: "Playwright"},
		Calls:  []m.Call{{Phase: "call:save", Kind: "tool", Name: "save", Args: json.RawMessage(`{"path":"/home/dev/workspace/.eslintrc.cjs"}`)}},
	}
	for _, tc := range []struct {
		phase, path string
		high        bool
		why         string
	}{
		{"startup", "~/.config/sublime-text/Packages/plugins/x.py", true, "an editor's plugin directory"},
		{"startup", "~/.local/share/gedit/plugins/evil.plugin", true, "XDG data plugins"},
		{"startup", "~/.vscode-oss/extensions/ext/main.js", true, "an extension directory outside the table"},
		{"startup", "~/.config/gimp/hooks/post.sh", true, "a hooks directory"},
		{"startup", "<workspace>/.tool/hooks/pre-push", true, "a hooks directory of a tool's dot-directory in the workspace"},
		{"startup", "<workspace>/tools/hooks/pre-push", false, "a project's own hooks directory (git runs .git/hooks, in the table)"},
		{"startup", "<workspace>/bin/app", false, "a project's build output"},
		{"startup", "~/.mcp/config.json", false, "a configuration in a directory named for no program"},
		{"startup", "~/.config/foo/autostart/run.sh", true, "an autostart directory"},
		{"startup", "~/.local/share/applications/open-url.desktop", true, "a handler"},
		{"startup", "~/.config/mimeapps.list", true, "default handlers"},
		{"startup", "~/.foo/bin/helper", true, "a bin directory"},
		{"startup", "~/.config/kitty/kitty.d/x.conf", true, "a drop-in directory"},
		{"startup", "~/.config/emacs-lite/init.el", true, "an init file"},
		{"startup", "~/.config/zathura/zathurarc", true, "a bare rc file in a config directory"},
		{"startup", "<workspace>/docs/src", false, "a file named src"},
		{"startup", "<workspace>/.eslintrc.cjs", true, "an rc file that loads plugins"},
		{"startup", "<workspace>/vite.config.ts", true, "a configuration that runs as code"},
		{"startup", "~/.config/htop/htoprc.conf", true, "another program's configuration"},
		{"startup", "~/.config/other/settings.json", true, "another program's configuration"},
		{"startup", "<workspace>/node_modules/left-pad/index.js", false, "the project's own install"},
		{"startup", "~/node_modules/left-pad/index.js", true, "modules every project under the home loads"},
		{"call:any", "~/.cache/puppeteer/chrome/linux-131/libEGL.so", true, "a browser in another program's cache, at run time"},
		{"install", "~/.cache/puppeteer/chrome/linux-131/libEGL.so", false, "an install script's download cache"},
		{"startup", "~/.okx/logs/trade.log", false, "its own data (package name)"},
		{"startup", "~/.okx/config.toml", false, "its own config (package name)"},
		{"startup", "~/.cache/ms-playwright-mcp/mcp-chrome/Default/Extensions/x.js", false, "its own data (server name)"},
		{"startup", "~/.local/share/okx-trade/plugins/p.js", false, "its own plugins (entry name)"},
		{"call:save", "<workspace>/.eslintrc.cjs", false, "the call named the file"},
		{"call:other", "<workspace>/.eslintrc.cjs", true, "another call did not"},
		{"startup", "~/.config/foo/state.json", false, "data"},
		{"startup", "~/.cache/foo/response.json", false, "a cache of data"},
		{"startup", "<workspace>/src/index.js", false, "source"},
		{"startup", "~/.config/foo/plugins", false, "the directory made empty"},
		{"startup", "<workspace>/src", false, "a directory named src"},
		{"call:git_init", "<workspace>/.git/hooks/pre-commit.sample", false, "git's sample hook (never runs)"},
	} {
		pe := &phaseEval{man: man, phase: m.Phase{Name: tc.phase}, own: ownTokens(man)}
		cat := layout.Category(tc.path, false, true)
		f, ok := pe.loadFinding(m.FileAccess{Path: tc.path, Access: m.AccessCreate, Category: cat, Result: m.ResultOK})
		if ok != tc.high || ok && (f.Severity != High || f.Kind != KindPersistence) {
			t.Errorf("%s %s (%s): %+v %v, want high %v", tc.phase, tc.path, tc.why, f, ok, tc.high)
		}
	}
}

// TestOwnDataNames: a directory is the server's when it shares a
// distinctive word with its names; generic words tie nothing.
func TestOwnDataNames(t *testing.T) {
	man := &m.Manifest{Target: m.Target{Name: "@wonderwhy-er/desktop-commander", Entry: []string{"node", "<pkg>/dist/index.js"}},
		Server: m.ServerInfo{Name: "desktop-commander"}}
	own := ownTokens(man)
	for path, want := range map[string]bool{
		"~/.claude-server-commander/config.json": true,
		"~/.config/desktop-commander/x":          true,
		"~/.claude-tools/config.json":            false,
		"~/.config/mcp-server/config.json":       false,
		"~/.cache/index/x":                       false,
	} {
		if got := ownData(own, path); got != want {
			t.Errorf("ownData(%s) = %v, want %v (tokens %v)", path, got, want, own)
		}
	}
}
