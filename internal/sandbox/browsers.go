package sandbox

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Browser libraries find the image's Chromium through the variables and
// paths their documentation gives for a system browser. They are set only
// for a package that carries (or declares) one of those libraries, as a
// user configures them for that server, never for every server: a variable
// nobody sets would be a tell.
//
//   - puppeteer, puppeteer-core: PUPPETEER_EXECUTABLE_PATH, and
//     PUPPETEER_SKIP_DOWNLOAD (and its older name) so an install script
//     does not try to download a browser;
//   - chrome-launcher and lighthouse: CHROME_PATH;
//   - playwright: PLAYWRIGHT_BROWSERS_PATH, a root-owned directory (the
//     path Microsoft's Playwright image uses) where the entrypoint links
//     each browser build the package's playwright-core names
//     (browsers.json) to the launcher, with the markers playwright checks;
//     PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD for its install script.
//
// Chrome's stable path (/opt/google/chrome/chrome), which chrome-devtools-mcp
// and playwright's "chrome" channel use without any variable, is in the
// image for every server.

// PlaywrightBrowsers is the root of the linked playwright browser builds.
const PlaywrightBrowsers = "/ms-playwright"

var browserLibs = []string{"puppeteer", "puppeteer-core", "playwright", "playwright-core", "chrome-launcher",
	"@puppeteer/browsers", "lighthouse"}

// Browser is how a package will find the browser: variables for its
// environment and the playwright builds to link.
type Browser struct {
	Env        []string
	Playwright []string // build directories, e.g. chromium_headless_shell-1247
}

// BrowserFor inspects an installed tree on the host (root holding
// node_modules/..., pkgDir the package relative to it). It reads only
// package manifests and browsers.json files, bounded in size.
func BrowserFor(root, pkgDir string) Browser {
	var b Browser
	uses := declares(filepath.Join(root, pkgDir, "package.json"))
	for _, pattern := range []string{"node_modules/%s", "node_modules/*/node_modules/%s", "node_modules/@*/*/node_modules/%s"} {
		for _, lib := range browserLibs {
			dirs, _ := filepath.Glob(filepath.Join(root, strings.ReplaceAll(pattern, "%s", lib)))
			for _, d := range dirs {
				if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
					uses = true
				}
				if strings.HasSuffix(lib, "playwright-core") {
					b.Playwright = append(b.Playwright, playwrightBuilds(filepath.Join(d, "browsers.json"))...)
				}
			}
		}
	}
	if !uses {
		return Browser{}
	}
	slices.Sort(b.Playwright)
	b.Playwright = slices.Compact(b.Playwright)
	b.Env = []string{"PUPPETEER_EXECUTABLE_PATH=" + ChromiumPath, "PUPPETEER_SKIP_DOWNLOAD=true",
		"PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=true", "CHROME_PATH=" + ChromiumPath,
		"PLAYWRIGHT_BROWSERS_PATH=" + PlaywrightBrowsers, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"}
	return b
}

// WithEnv adds the variables to env, leaving any the configuration set.
func (b Browser) WithEnv(env []string) []string {
	out := slices.Clone(env)
	for _, kv := range b.Env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
			out = append(out, kv)
		}
	}
	return out
}

// declares reports whether a package manifest names a browser library
// among its dependencies of any kind (a server that uses one when present).
func declares(manifest string) bool {
	var pj map[string]json.RawMessage
	if !readJSON(manifest, &pj) {
		return false
	}
	for _, field := range []string{"dependencies", "optionalDependencies", "peerDependencies"} {
		var deps map[string]string
		if json.Unmarshal(pj[field], &deps) != nil {
			continue
		}
		for _, lib := range browserLibs {
			if _, ok := deps[lib]; ok {
				return true
			}
		}
	}
	return false
}

// reRevision is a playwright build revision: digits only, so it can name a
// directory the entrypoint makes as root.
var reRevision = regexp.MustCompile(`^[0-9]{1,8}$`)

// playwrightBuilds names the Chromium builds a playwright-core expects
// (browsers.json: "chromium" and "chromium-headless-shell" with their
// revisions), as the directories playwright looks in.
func playwrightBuilds(file string) []string {
	var bj struct {
		Browsers []struct{ Name, Revision string } `json:"browsers"`
	}
	if !readJSON(file, &bj) {
		return nil
	}
	var out []string
	for _, br := range bj.Browsers {
		if (br.Name == "chromium" || br.Name == "chromium-headless-shell") && reRevision.MatchString(br.Revision) {
			out = append(out, strings.ReplaceAll(br.Name, "-", "_")+"-"+br.Revision)
		}
	}
	return out
}

// readJSON decodes a small JSON file (a package's own, so bounded).
func readJSON(file string, v any) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	return err == nil && json.Unmarshal(b, v) == nil
}
