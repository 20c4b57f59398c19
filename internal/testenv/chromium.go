package testenv

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Page is what headless Chromium saw of a page.
type Page struct {
	DOM        string   // the DOM after the page's scripts ran
	Console    []string // console messages and uncaught exceptions
	Screenshot []byte   // PNG
}

// Chromium returns the path of Debian's chromium. Tests skip without it
// unless MCP_AUDIT_REQUIRE_CHROMIUM is set.
func Chromium(t testing.TB) string {
	t.Helper()
	EndToEnd(t, RequireChromium)
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(RequireChromium) != "" {
		t.Fatal("chromium is required (apt-get install chromium)")
	}
	t.Skip("chromium not installed")
	return ""
}

var reConsole = regexp.MustCompile(`:CONSOLE(?::\d+)?\]? (.*)`)

// LoadPage opens a local file (with an optional #fragment) in headless
// Chromium, in a network namespace of its own when unshare works, so the
// browser cannot send a packet anywhere. A screenshot costs a second
// browser start.
func LoadPage(t testing.TB, file, fragment string, screenshot bool) Page {
	t.Helper()
	bin := Chromium(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	if fragment != "" {
		url += "#" + fragment
	}
	run := func(extra ...string) (stdout, stderr []byte) {
		args := append([]string{bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
			"--disable-default-apps", "--no-first-run", "--no-pings", "--dns-prefetch-disable",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1280,1800"}, extra...)
		args = append(args, url)
		if u, err := exec.LookPath("unshare"); err == nil && exec.Command(u, "--net", "true").Run() == nil {
			args = append([]string{u, "--net"}, args...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.Bytes())
		}
		return out.Bytes(), errb.Bytes()
	}
	var p Page
	dom, logs := run("--dump-dom")
	p.DOM = string(dom)
	for _, m := range reConsole.FindAllSubmatch(logs, -1) {
		// Chromium's own pages log too (a "slow network" notice on a
		// loaded machine); only the page under test counts.
		if bytes.Contains(m[1], []byte("source: chrome://")) {
			continue
		}
		p.Console = append(p.Console, string(m[1]))
	}
	if screenshot {
		shot := filepath.Join(t.TempDir(), "shot.png")
		run("--screenshot=" + shot)
		if p.Screenshot, err = os.ReadFile(shot); err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
	}
	return p
}

// Colors counts the distinct colors of a PNG: a blank page has one.
func Colors(t testing.TB, pngData []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
