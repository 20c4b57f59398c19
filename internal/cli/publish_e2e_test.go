package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/site"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestPublishFeed runs the study's loop end to end: three batch runs over
// a fixture server, each published into the same site. The second version
// contacts a new host and sends a new payload field: the Atom feed gets
// exactly one entry naming both. The third version behaves like the second:
// no entry. The stable URLs serve the right manifests, index.json and
// changes.json match their schemas, publishing again changes no byte, and
// the pages load cleanly in headless Chromium.
func TestPublishFeed(t *testing.T) {
	testenv.Image(t)
	testenv.SinkBinary(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg := testenv.NewRegistry(t)
	const name = "@feedtest/mailer"
	reg.PublishFixture(t, fixture, name, "1.0.0", "mail")
	reg.PublishFixture(t, fixture, name, "2.0.0", "mail", "track", "mail-bcc")
	reg.PublishFixture(t, fixture, name, "2.0.1", "mail", "track", "mail-bcc")
	reg.Use(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run(ctx, args, nil, &out, &errb, os.Getenv); code != ExitOK {
			t.Fatalf("mcp-audit %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
		return errb.String()
	}
	batchRun := func(version string) string {
		list := filepath.Join(dir, "list-"+version+".yml")
		os.WriteFile(list, []byte("idle: {quiet: 500ms, min: 200ms, max: 5s}\nservers:\n  mailer:\n    target: npm:"+name+
			"\n    version: "+version+"\n"), 0o644)
		out := filepath.Join(dir, "results-"+version)
		run("batch", "--list", list, "--out", out, "--jobs", "1")
		return out
	}
	siteDir := filepath.Join(dir, "site")
	publish := func(results ...string) string {
		return run(append([]string{"publish", "--out", siteDir, "--base-url", "https://feeds.example/study/"}, results...)...)
	}

	r1 := batchRun("1.0.0")
	if out := publish(r1); !strings.Contains(out, "published 1 new version(s) and 0 behavior change(s)") {
		t.Errorf("first publication: %s", out)
	}
	r2 := batchRun("2.0.0")
	if out := publish(r2); !strings.Contains(out, "published 1 new version(s) and 1 behavior change(s)") {
		t.Errorf("second publication: %s", out)
	}
	feed := checkFeed(t, siteDir, 1)
	content := feed.Entries[0].Content
	for _, want := range []string{"track.fixture.example", "body field Bcc", "archive@collector.example"} {
		if !strings.Contains(content, want) {
			t.Errorf("the entry does not name %q:\n%s", want, content)
		}
	}
	if title := feed.Entries[0].Title; !strings.HasPrefix(title, "[high] "+name+" 1.0.0 → 2.0.0") {
		t.Errorf("entry title %q", title)
	}
	checkStableURLs(t, siteDir, map[string]string{"1.0.0": r1, "2.0.0": r2})
	for file, schema := range map[string]string{site.IndexFile: "site-index.schema.json", site.ChangesFile: "site-changes.schema.json"} {
		validateAgainst(t, filepath.Join(siteDir, file), schema)
	}

	before := snapshotDir(t, siteDir)
	publish(r1, r2)
	if !maps.Equal(before, snapshotDir(t, siteDir)) {
		t.Error("publishing the same results again changed the site")
	}
	r3 := batchRun("2.0.1")
	if out := publish(r3); !strings.Contains(out, "published 1 new version(s) and 0 behavior change(s)") {
		t.Errorf("third publication: %s", out)
	}
	if again := checkFeed(t, siteDir, 1); again.Entries[0] != feed.Entries[0] {
		t.Errorf("the entry changed: %+v", again.Entries[0])
	}
	checkPagesInChromium(t, siteDir, name)
}

type feedDoc struct {
	Entries []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Content string `xml:"content"`
	} `xml:"entry"`
}

// checkFeed applies the Atom rules readers need and returns the feed.
func checkFeed(t *testing.T, siteDir string, entries int) feedDoc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(siteDir, site.FeedFile))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := site.CheckAtom(data); err != nil || n != entries {
		t.Fatalf("feed.atom: %d entries (want %d), %v\n%s", n, entries, err, data)
	}
	var f feedDoc
	if err := xml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkStableURLs serves the site over HTTP and fetches each version's
// manifest at /npm/NAME/VERSION.json: the bytes the batch wrote, for that
// version.
func checkStableURLs(t *testing.T, siteDir string, results map[string]string) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(siteDir)))
	defer srv.Close()
	for version, r := range results {
		resp, err := srv.Client().Get(srv.URL + "/npm/@feedtest/mailer/" + version + ".json")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := os.ReadFile(filepath.Join(r, "manifests", "npm", "@feedtest", "mailer", version+".json"))
		man, err := m.Decode(got)
		if resp.StatusCode != http.StatusOK || err != nil || man.Target.Version != version || !bytes.Equal(got, want) {
			t.Errorf("/npm/@feedtest/mailer/%s.json: %s, %v, version %q", version, resp.Status, err, man.Target.Version)
		}
	}
}

func validateAgainst(t *testing.T, file, schema string) {
	t.Helper()
	raw, _ := os.ReadFile(filepath.Join("..", "..", "schemas", schema))
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(file)
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s: %v", file, err)
	}
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return err
	})
	return files
}

// checkPagesInChromium loads the report, the home page and the server's
// page: no console errors or CSP violations, and the expected content.
func checkPagesInChromium(t *testing.T, siteDir, name string) {
	t.Helper()
	testenv.Chromium(t)
	for page, want := range map[string][]string{
		site.ReportFile:                     {`data-ready="1"`, `data-server="mailer"`},
		site.HomeFile:                       {`data-server="` + name + `"`, "[high] " + name + " 1.0.0 → 2.0.0"},
		"npm/" + name + "/" + site.PageFile: {`id="v2.0.1"`, "No behavior change since 2.0.0", "track.fixture.example", "Bcc"},
	} {
		p := testenv.LoadPage(t, filepath.Join(siteDir, filepath.FromSlash(page)), "", false)
		if len(p.Console) != 0 {
			t.Errorf("%s: console output %q", page, p.Console)
		}
		for _, w := range want {
			if !strings.Contains(p.DOM, w) {
				t.Errorf("%s: DOM lacks %q", page, w)
			}
		}
	}
}
