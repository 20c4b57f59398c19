package site

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestPublishIncremental publishes three runs one after the other: the
// first version of each server starts its history, a release that
// contacts a new host gets one feed entry, a release that behaves the same
// gets none. Publishing any run again changes no byte, and publishing all
// runs into an empty site gives the same site as publishing them one by
// one.
func TestPublishIncremental(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{
		"a": server("alpha", "1.0.0", "api.alpha.example"), "b": server("@s/beta", "2.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{
		"a": server("alpha", "1.1.0", "api.alpha.example", "collect.evil.example"), "b": server("@s/beta", "2.0.0")}})
	r3 := writeRun(t, run{at: "2026-01-19T05:00:00Z", servers: map[string]*m.Manifest{
		"a": server("alpha", "1.2.0", "api.alpha.example", "collect.evil.example"), "b": server("@s/beta", "2.0.0")}})
	site := t.TempDir()

	if sum := publish(t, site, r1); sum.Versions != 2 || sum.Entries != 0 {
		t.Fatalf("first run: %+v", sum)
	}
	first := snapshot(t, site)
	if publish(t, site, r1); !maps.Equal(first, snapshot(t, site)) {
		t.Error("publishing the same results again changed the site")
	}
	if sum := publish(t, site, r2); sum.Versions != 1 || sum.Entries != 1 {
		t.Fatalf("second run: %+v", sum)
	}
	second := snapshot(t, site)
	for p, b := range first {
		if strings.HasSuffix(p, ".json") && p != IndexFile && p != ChangesFile && second[p] != b {
			t.Errorf("%s was rewritten", p)
		}
	}
	entries := feedEntries(t, second[ChangesFile])
	if len(entries) != 1 || entries[0].Severity != "high" || entries[0].NewVersion != "1.1.0" || entries[0].OldVersion != "1.0.0" ||
		entries[0].Published != "2026-01-12T05:00:00Z" || !strings.Contains(second[FeedFile], "collect.evil.example") {
		t.Fatalf("entries after the second run: %+v", entries)
	}
	if publish(t, site, r1, r2); !maps.Equal(second, snapshot(t, site)) {
		t.Error("publishing both runs again changed the site")
	}
	if sum := publish(t, site, r3); sum.Versions != 1 || sum.Entries != 0 {
		t.Fatalf("third run: %+v", sum)
	}
	third := snapshot(t, site)
	if d := cmp.Diff(entries, feedEntries(t, third[ChangesFile])); d != "" {
		t.Errorf("a run without behavior changes changed the feed's entries:\n%s", d)
	}
	if !strings.Contains(third["npm/alpha/index.html"], "No behavior change since 1.1.0") {
		t.Error("the server page does not say 1.2.0 behaves like 1.1.0")
	}
	fresh := t.TempDir()
	publish(t, fresh, r1, r2, r3)
	if d := cmp.Diff(third, snapshot(t, fresh)); d != "" {
		t.Errorf("one publication of all runs differs from three:\n%s", d)
	}
	for _, p := range []string{"npm/alpha/1.0.0.json", "npm/alpha/1.1.0.json", "npm/alpha/1.2.0.json", "npm/@s/beta/2.0.0.json",
		"npm/@s/beta/2.0.0.toolhive.json", "npm/@s/beta/2.0.0.docker.yaml", "npm/@s/beta/index.html", ReportFile, HomeFile} {
		if _, ok := third[p]; !ok {
			t.Errorf("the site lacks %s", p)
		}
	}
}

// TestOlderResultsKeepTheNewerReport: report.html shows the newest run,
// whatever order results are published in.
func TestOlderResultsKeepTheNewerReport(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.1.0")}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	before := snapshot(t, site)
	publish(t, site, r1)
	if !maps.Equal(before, snapshot(t, site)) {
		t.Error("publishing older results changed the site")
	}
}

// TestSchemas validates index.json and changes.json against the schemas
// in schemas/, and checks that the schemas reject what they should.
func TestSchemas(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.1.0", "new.example")}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	files := snapshot(t, site)
	for file, schema := range map[string]string{IndexFile: "site-index.schema.json", ChangesFile: "site-changes.schema.json"} {
		if err := validateSchema(t, schema, []byte(files[file])); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	// An incomplete version and its coverage line, as a batch of the
	// current method writes them.
	incomplete := strings.Replace(files[IndexFile], `"verdict": "pass"`, `"verdict": "incomplete", "coverage": "exercised: 0 of 1 tools ok; 1 error"`, 1)
	if incomplete == files[IndexFile] {
		t.Fatal("the test's edit did not apply")
	}
	if err := validateSchema(t, "site-index.schema.json", []byte(incomplete)); err != nil {
		t.Errorf("an incomplete version: %v", err)
	}
	bad := map[string]string{
		"site-index.schema.json":   strings.Replace(files[IndexFile], `"manifest": "npm/alpha/1.0.0.json"`, `"manifest": "../../etc/passwd"`, 1),
		"site-changes.schema.json": strings.Replace(files[ChangesFile], `"severity": "high"`, `"severity": "dire"`, 1),
	}
	for schema, doc := range bad {
		if doc == files[IndexFile] || doc == files[ChangesFile] {
			t.Fatalf("%s: the test's edit did not apply", schema)
		}
		if validateSchema(t, schema, []byte(doc)) == nil {
			t.Errorf("%s accepts an invalid document", schema)
		}
	}
}

// TestFeedIsAtom checks the feed with the rules readers need, and that
// CheckAtom itself rejects broken feeds.
func TestFeedIsAtom(t *testing.T) {
	r1 := writeRun(t, run{at: "2026-01-05T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.0.0"), "b": server("beta", "1.0.0")}})
	r2 := writeRun(t, run{at: "2026-01-12T05:00:00Z", servers: map[string]*m.Manifest{"a": server("alpha", "1.1.0", "x.example"), "b": server("beta", "1.1.0", "y.example")}})
	site := t.TempDir()
	publish(t, site, r1, r2)
	feed := snapshot(t, site)[FeedFile]
	if n, err := CheckAtom([]byte(feed)); err != nil || n != 2 {
		t.Fatalf("feed: %d entries, %v\n%s", n, err, feed)
	}
	for _, want := range []string{`href="https://feeds.example/mcp/npm/alpha/index.html#v1.1.0"`, `href="https://feeds.example/mcp/feed.atom"`,
		`<title>[high] beta 1.0.0 → 1.1.0`} {
		if !strings.Contains(feed, want) {
			t.Errorf("feed lacks %s", want)
		}
	}
	broken := map[string]string{
		"duplicate id": strings.Replace(feed, feedEntriesIDs(t, site)[1], feedEntriesIDs(t, site)[0], 1),
		"bad date":     strings.Replace(feed, "<updated>2026-01-12T05:00:00Z</updated>", "<updated>12 Jan 2026</updated>", 1),
		"no author":    strings.NewReplacer("<author>", "<contributor>", "</author>", "</contributor>").Replace(feed),
		"relative id":  strings.Replace(feed, "<id>urn:uuid:", "<id>", 1),
		"feed link":    strings.Replace(feed, "<link ", "<lonk ", 2),
	}
	for name, f := range broken {
		if f == feed {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := CheckAtom([]byte(f)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

type entryView struct {
	ID, Severity, OldVersion, NewVersion, Published string
}

func feedEntries(t *testing.T, changes string) []entryView {
	t.Helper()
	var ch Changes
	if err := json.Unmarshal([]byte(changes), &ch); err != nil {
		t.Fatal(err)
	}
	var out []entryView
	for _, e := range ch.Entries {
		out = append(out, entryView{e.ID, e.Severity, e.OldVersion, e.NewVersion, e.Published})
	}
	return out
}

func feedEntriesIDs(t *testing.T, site string) []string {
	var ids []string
	for _, e := range feedEntries(t, snapshot(t, site)[ChangesFile]) {
		ids = append(ids, e.ID)
	}
	return slices.Compact(ids)
}
