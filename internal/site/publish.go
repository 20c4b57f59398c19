package site

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/export"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Options configure a publication.
type Options struct {
	// Out is the site directory: read back when it exists, then extended.
	Out string
	// Results are batch results directories of the same list, oldest first.
	Results []string
	// BaseURL is where the site is served ("https://owner.github.io/repo/");
	// "" makes the feed's links relative to the site's root.
	BaseURL string
}

// Summary is what a publication added.
type Summary struct {
	Versions int      // versions published for the first time
	Entries  int      // new entries in the feed of changes
	Skipped  []string // versions that cannot have a stable URL (cleaned text)
}

// Publish adds the versions of opts.Results that the site does not have
// yet, compares each with the server's previous published version, and
// renders the site.
func Publish(opts Options) (*Summary, error) {
	if err := CheckBaseURL(opts.BaseURL); err != nil {
		return nil, err
	}
	st, err := open(opts.Out)
	if err != nil {
		return nil, err
	}
	sum := &Summary{}
	for _, dir := range opts.Results {
		if err := st.addRun(dir, sum); err != nil {
			return nil, err
		}
	}
	if err := st.write(opts.BaseURL); err != nil {
		return nil, err
	}
	return sum, nil
}

// addRun adds one results directory's versions, in a stable order.
func (st *state) addRun(dir string, sum *Summary) error {
	audits, generated, err := batch.Audits(dir)
	if err != nil {
		return err
	}
	slices.SortStableFunc(audits, func(a, b batch.Audited) int {
		ta, tb := a.Manifest.Target, b.Manifest.Target
		return cmp.Or(strings.Compare(ta.Ecosystem, tb.Ecosystem), strings.Compare(ta.Name, tb.Name), compareVersions(ta.Version, tb.Version))
	})
	for _, a := range audits {
		added, err := st.addVersion(a, generated, sum)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if added {
			sum.Versions++
		}
	}
	if later(generated, st.idx.ReportGeneratedAt) {
		if st.report, err = batch.ReportHTML(dir, generated, siteLinks); err != nil {
			return err
		}
		st.idx.ReportGeneratedAt = generated
	}
	return nil
}

// addVersion publishes one audited version unless the site has it.
func (st *state) addVersion(a batch.Audited, generated string, sum *Summary) (bool, error) {
	t := a.Manifest.Target
	p, err := pathsOf(t.Ecosystem, t.Name, t.Version)
	if err != nil {
		sum.Skipped = append(sum.Skipped, textsafe.Line(t.Ecosystem+":"+t.Name+"@"+t.Version, 300))
		return false, nil
	}
	srv := st.server(t.Ecosystem, t.Name, p.Page)
	if slices.ContainsFunc(srv.Versions, func(v Version) bool { return v.Version == t.Version }) {
		return false, nil // published before: history is never rewritten
	}
	sha := sha256.Sum256(a.Data)
	v := Version{Version: t.Version, Manifest: p.Manifest, Digest: "sha256:" + hex.EncodeToString(sha[:]), Status: a.Manifest.Outcome.Status,
		Verdict: a.Verdict, Counts: a.Counts, Coverage: textsafe.Line(a.Coverage, 300), Published: published(a.AuditedAt, generated)}
	if v.Counts == nil {
		v.Counts = map[string]int{}
	}
	st.pending[p.Manifest] = a.Data
	if a.Verdict == m.VerdictPass {
		// As in a batch: a failed audit publishes no allow-list.
		th, err := export.ToolHive(a.Manifest)
		if err != nil {
			return false, err
		}
		st.pending[p.ToolHive], st.pending[p.Docker] = th, export.DockerAllowHosts(a.Manifest)
		v.ToolHive, v.Docker = p.ToolHive, p.Docker
	}
	if n := len(srv.Versions); n > 0 {
		prev := srv.Versions[n-1]
		old, err := st.manifest(prev)
		if err != nil {
			return false, err
		}
		v.Previous = prev.Version
		res := diff.Compare(old, a.Manifest, policy.Policy{FailOn: policy.DefaultFailOn})
		if len(res.Changes) > 0 || len(res.Findings) > 0 {
			e := newEntry(res, v.Published)
			v.Change = e.ID
			st.ch.Entries = append(st.ch.Entries, e)
			sum.Entries++
		}
	}
	srv.Versions = append(srv.Versions, v)
	return true, nil
}

// published is the audit's finish time in UTC, or the run's when the
// record has none.
func published(auditedAt, generated string) string {
	if t, err := time.Parse(time.RFC3339, auditedAt); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return generated
}

// later reports whether RFC 3339 time a is after b ("" is before all).
func later(a, b string) bool {
	ta, err := time.Parse(time.RFC3339, a)
	if err != nil {
		return false
	}
	tb, err := time.Parse(time.RFC3339, b)
	return err != nil || ta.After(tb)
}

// compareVersions orders semver versions by precedence, others as text
// before them.
func compareVersions(a, b string) int {
	va, ea := semver.NewVersion(a)
	vb, eb := semver.NewVersion(b)
	switch {
	case ea == nil && eb == nil:
		return cmp.Or(va.Compare(vb), strings.Compare(a, b))
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	}
	return 1
}

// siteLinks are a server's links in the site's report.html: its page and
// its version's stable manifest and allow-lists, which the site has (the
// results directory's records and manifests/ are not published). A
// version whose name is not usable in a URL has no page, and no links.
func siteLinks(r batch.Record) []batch.Link {
	p, err := pathsOf(r.Ecosystem, r.Name, r.Version)
	if err != nil || r.Manifest == "" {
		return nil
	}
	out := []batch.Link{{Label: "server page", Href: p.Page + "#" + anchor(r.Version)}, {Label: "manifest", Href: p.Manifest}}
	if r.Verdict == m.VerdictPass {
		out = append(out, batch.Link{Label: "ToolHive profile", Href: p.ToolHive}, batch.Link{Label: "Docker allow-list", Href: p.Docker})
	}
	return out
}
