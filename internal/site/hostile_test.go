package site

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestHostileTextStaysText: what a server controls (tool descriptions,
// hosts, paths) reaches the feed escaped by encoding/xml and the pages
// escaped by html/template, cleaned of bidi and control characters, and
// never becomes a link.
func TestHostileTextStaysText(t *testing.T) {
	evil := "</content><script>alert(1)</script>]]><img src=x onerror=alert(1)>\u202egnp.exe\x1b[2J"
	v1 := server("alpha", "1.0.0")
	v2 := server("alpha", "1.1.0", "evil.example")
	v2.Tools = []m.Tool{{Name: "t" + evil, Description: evil, Digest: "sha256:1"}}
	v2.Phases[0].Files = []m.FileAccess{{Path: "~/" + evil, Access: "read", Category: "sensitive", Result: "ok"}}
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": v1}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": v2}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	files := snapshot(t, site)
	if n, err := CheckAtom([]byte(files[FeedFile])); err != nil || n != 1 {
		t.Fatalf("feed: %d entries, %v", n, err)
	}
	for _, p := range []string{FeedFile, ChangesFile, HomeFile, "npm/alpha/index.html"} {
		f := files[p]
		for _, bad := range []string{"<script>", "<img", "\u202e", "\x1b"} {
			if strings.Contains(f, bad) {
				t.Errorf("%s carries %q", p, bad)
			}
		}
		if !strings.Contains(f, "gnp.exe") && p != HomeFile {
			t.Errorf("%s lost the hostile text instead of showing it", p)
		}
	}
	href := regexp.MustCompile(`href="([^"]*)"`)
	for _, p := range []string{FeedFile, HomeFile, "npm/alpha/index.html"} {
		for _, h := range href.FindAllStringSubmatch(files[p], -1) {
			if strings.Contains(h[1], "evil") || strings.Contains(h[1], "gnp") {
				t.Errorf("%s links to %q, built from server text", p, h[1])
			}
		}
	}
}

// TestUnsafeNamesAreSkipped: a version that cannot be a plain URL path is
// left out of the site, and the rest is published.
func TestUnsafeNamesAreSkipped(t *testing.T) {
	r := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{
		"ok": server("alpha", "1.0.0"), "odd": server("beta", "1.0.0?x=<b>"), "hash": server("gamma", "1.0.0#frag")}})
	site := t.TempDir()
	sum := publish(t, site, r)
	if sum.Versions != 1 || len(sum.Skipped) != 2 {
		t.Fatalf("%+v", sum)
	}
	for p := range snapshot(t, site) {
		if strings.Contains(p, "beta") || strings.Contains(p, "gamma") {
			t.Errorf("published %s", p)
		}
	}
}

func TestPathsOf(t *testing.T) {
	for _, c := range []struct {
		eco, name, version, manifest string
	}{
		{"npm", "alpha", "1.0.0", "npm/alpha/1.0.0.json"},
		{"npm", "@scope/pkg", "2.0.0-rc.1+build.5", "npm/@scope/pkg/2.0.0-rc.1+build.5.json"},
		{"npm", "../etc", "1.0.0", ""},
		{"npm", "alpha", "..", ""},
		{"npm", "a/b", "1.0.0", ""},
		{"npm", "@s/@t", "1.0.0", ""},
		{"npm", "alpha", "1.0.0/x", ""},
		{"npm", "alpha", "1.0.0.toolhive", ""},
		{"npm", "alpha", "javascript:alert(1)", ""},
		{"npm", "al pha", "1.0.0", ""},
		{"npm", "alpha", "1.0.0%2F", ""},
		{"NPM", "alpha", "1.0.0", ""},
		{"npm", "alph\u00e4", "1.0.0", ""},
	} {
		p, err := pathsOf(c.eco, c.name, c.version)
		if c.manifest == "" {
			if !errors.Is(err, ErrUnsafePath) {
				t.Errorf("%s %q %q: accepted as %q", c.eco, c.name, c.version, p.Manifest)
			}
			continue
		}
		if err != nil || p.Manifest != c.manifest {
			t.Errorf("%s %q %q: %q %v, want %q", c.eco, c.name, c.version, p.Manifest, err, c.manifest)
		}
	}
}
