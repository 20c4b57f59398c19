package site

import (
	"encoding/json"
	"html"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

var reHref = regexp.MustCompile(`href="([^"]*)"`)

// TestSiteLinksResolve: every relative link of every page of a published
// site — the home page, the server pages and report.html, which a batch
// renders with links into its results directory (manifests/…, records/…)
// — leads to a file the site has, and each #anchor to an id on that page.
func TestSiteLinksResolve(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{
		"a": server("alpha", "1.0.0"), "b": server("@s/beta", "2.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{
		"a": server("alpha", "1.1.0", "collect.evil.example"), "b": server("@s/beta", "2.0.0")}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	files := snapshot(t, site)
	checked := 0
	for page, body := range files {
		if !strings.HasSuffix(page, ".html") {
			continue
		}
		for _, mt := range reHref.FindAllStringSubmatch(body, -1) {
			href := html.UnescapeString(mt[1])
			u, err := url.Parse(href)
			if err != nil {
				t.Errorf("%s: bad link %q", page, href)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // the feed's absolute links are checked by TestFeedIsAtom
			}
			target := page
			if u.Path != "" {
				target = path.Join(path.Dir(page), u.Path)
			}
			doc, ok := files[target]
			if !ok {
				t.Errorf("%s links %q: the site has no %s", page, href, target)
				continue
			}
			if u.Fragment != "" && !strings.Contains(doc, `id="`+u.Fragment+`"`) {
				t.Errorf("%s links %q: %s has no id %q", page, href, target, u.Fragment)
			}
			checked++
		}
	}
	if checked < 10 || !regexp.MustCompile(`href="npm/alpha/1\.[01]\.0\.json"`).MatchString(files[ReportFile]) {
		t.Errorf("%d links checked; report.html should link the site's own manifests", checked)
	}
}

// TestFeedTitlesSayWhatChanged: a feed entry's title names the worst
// finding (or the first change), not only counts.
func TestFeedTitlesSayWhatChanged(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.1.0", "collect.evil.example")}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	var ch Changes
	if err := json.Unmarshal([]byte(snapshot(t, site)[ChangesFile]), &ch); err != nil || len(ch.Entries) != 1 {
		t.Fatalf("%v, %d entries", err, len(ch.Entries))
	}
	title := ch.Entries[0].Title
	if !strings.HasPrefix(title, "[high] alpha 1.0.0 → 1.1.0: ") || !strings.Contains(title, "collect.evil.example") {
		t.Errorf("title %q does not say what changed", title)
	}
}
