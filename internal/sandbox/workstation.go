package sandbox

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// The sandbox image is a developer's workstation: besides what the
// entrypoint needs it has the programs MCP servers commonly start (git,
// curl, python3) and a headless Chromium from Debian's packages, so a
// server that drives a browser or a repository reaches the code behind its
// tools instead of failing on "Could not find Chrome". Each is traced like
// any other program the server starts.

//go:embed chromium.sh
var chromiumLauncher []byte

//go:embed chromium-policy.json
var chromiumPolicy []byte

// ChromiumPath is the browser every variable and alias points at: the
// launcher (chromium.sh), which runs ChromiumBinary with its own sandbox
// off and its background traffic stopped.
const ChromiumPath = "/usr/bin/chromium"

// ChromiumBinary is Debian's Chromium binary in the image. Only root may
// change it or its directory, so a process that executed this path runs
// the image's browser (see classify's browser provenance).
const ChromiumBinary = "/usr/lib/chromium/chromium"

// chromiumPolicyPath holds managed policies (as an organization would set
// them) that keep the browser's own services (search, suggestions, AI
// features, safe browsing, sync, updates) from calling home whatever flags
// the caller passes.
const chromiumPolicyPath = "/etc/chromium/policies/managed/workstation.json"

// chromiumAliases are the other places programs look for a browser:
// Chrome's stable channel (puppeteer's and playwright's "chrome", and
// chrome-devtools-mcp's default), the names chrome-launcher and others
// search PATH for.
var chromiumAliases = []string{"/opt/google/chrome/chrome", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable",
	"/usr/bin/chromium-browser"}

// workstationPackages are the image's Debian packages beyond the
// entrypoint's. fontconfig generates the system font cache at install, so
// the browser does not write one into the home; dbus-x11 is the session bus
// GTK's settings backend depends on (debootstrap does not resolve that
// virtual package by itself; apt would pick systemd's).
const workstationPackages = "git,curl,chromium,fonts-liberation,fontconfig,dbus-x11"

// trimmed are left out of the image: documentation and translations
// (about 125 MB with Chromium) that no program reads.
var trimmed = []string{"usr/share/doc/*", "usr/share/man/*", "usr/share/info/*", "usr/share/locale/*/LC_MESSAGES"}

// installWorkstation adds the browser launcher, its policy and aliases to an
// offline root filesystem and trims it. Debian's /usr/bin/chromium wrapper
// (which sources /etc/chromium.d and starts a dozen helper programs) is
// replaced by the launcher.
func installWorkstation(root string) error {
	put := func(p string, b []byte, mode os.FileMode) error {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		os.Remove(full)
		if err := os.WriteFile(full, b, mode); err != nil {
			return err
		}
		return os.Chmod(full, mode)
	}
	if err := put(ChromiumPath, chromiumLauncher, 0o755); err != nil {
		return fmt.Errorf("installing the chromium launcher: %w", err)
	}
	if err := put(chromiumPolicyPath, chromiumPolicy, 0o644); err != nil {
		return fmt.Errorf("installing the chromium policy: %w", err)
	}
	for _, a := range chromiumAliases {
		full := filepath.Join(root, a)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		os.Remove(full)
		if err := os.Symlink(ChromiumPath, full); err != nil {
			return fmt.Errorf("linking %s: %w", a, err)
		}
	}
	for _, g := range trimmed {
		m, _ := filepath.Glob(filepath.Join(root, g))
		for _, f := range m {
			os.RemoveAll(f)
		}
	}
	return nil
}

// dockerfileContext is the build context of the Dockerfile flavor: the
// Dockerfile and the files it copies.
func dockerfileContext() []TarFile {
	return []TarFile{
		{Path: "Dockerfile", Content: dockerfile, Mode: 0o644},
		{Path: "chromium.sh", Content: chromiumLauncher, Mode: 0o755},
		{Path: "chromium-policy.json", Content: chromiumPolicy, Mode: 0o644},
	}
}

// debootstrapCache keeps downloaded Debian packages between offline builds
// (a rebuild after an image version change fetches only what changed);
// empty when no cache directory is known.
func debootstrapCache() string {
	dir, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	dir = filepath.Join(dir, "mcp-audit", "debootstrap")
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	return dir
}
