package site

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestPagesInChromium opens the home page and a server page in headless
// Chromium: no console errors or CSP violations, something drawn, the
// versions and the change shown, hostile text kept as text.
func TestPagesInChromium(t *testing.T) {
	testenv.Chromium(t)
	evil := `<img src=x onerror="document.body.dataset.pwned=1">`
	v2 := server("@s/alpha", "1.1.0", "collect.evil.example")
	v2.Tools = []m.Tool{{Name: "send", Description: evil, Digest: "sha256:1"}}
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("@s/alpha", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": v2}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	for page, want := range map[string][]string{
		HomeFile:                  {`data-server="@s/alpha"`, "[high] @s/alpha 1.0.0 → 1.1.0", `href="npm/@s/alpha/index.html#v1.1.0"`},
		"npm/@s/alpha/index.html": {`id="v1.1.0"`, `id="v1.0.0"`, "collect.evil.example", "Behavior changed since 1.0.0", "First audited version"},
		ReportFile:                {`href="npm/@s/alpha/index.html#v1.`, `href="npm/@s/alpha/1.`},
	} {
		p := testenv.LoadPage(t, filepath.Join(site, filepath.FromSlash(page)), "", true)
		if len(p.Console) != 0 {
			t.Errorf("%s: console output (errors or CSP violations): %q", page, p.Console)
		}
		if strings.Contains(p.DOM, "<img") || strings.Contains(p.DOM, "data-pwned") {
			t.Errorf("%s: hostile text became markup", page)
		}
		if n := testenv.Colors(t, p.Screenshot); n < 4 {
			t.Errorf("%s: screenshot has %d colors; the page looks blank", page, n)
		}
		// Text never runs together: evidence and details start after a
		// space ("during a call resolved through…").
		if bad := regexp.MustCompile(`[^\s>]<span class="ev">`).FindString(p.DOM); bad != "" {
			t.Errorf("%s: text runs together at %q", page, bad)
		}
		if strings.Contains(p.DOM, `href="manifests/`) || strings.Contains(p.DOM, `href="records/`) {
			t.Errorf("%s: links into a results directory the site does not have", page)
		}
		for _, w := range want {
			if !strings.Contains(p.DOM, w) {
				t.Errorf("%s: DOM lacks %q", page, w)
			}
		}
	}
}
