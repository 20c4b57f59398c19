package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// hostileMarkup is what a server (or a pull request's configuration)
// could write to turn a comment into a phishing page: links, autolinks,
// images, HTML, mentions, issue references, emphasis and headings.
const hostileMarkup = "[click](https://evil.example/a) <img src=x onerror=y> https://evil.example/b " +
	"www.evil.example @maintainer #1 **bold** ## head ![i](https://evil.example/i.png) <https://evil.example/c> `x`"

// markupLeaks finds what GitHub would render from hostileMarkup.
// Text inside <code> (mdCode) is entity-escaped and GitHub finds no
// mentions or references there, so only what is outside counts.
var (
	markupLeaks = regexp.MustCompile(`[^\\]\]\(|<img|<https|https://|www\.evil|@maintainer|[^\\]\*\*bold|[^\\]!\[|#1\b`)
	codeSpan    = regexp.MustCompile(`<code>[^<]*</code>`)
)

// TestMarkdownFieldsCannotBecomeMarkup: every field of a Markdown report
// (the PR comment and the job summary) that carries text from a server or
// from the configuration is shown as text: no link, autolink, image, HTML
// element or mention survives. The accept command and the suggested
// allow-list sit in fenced code blocks, where nothing renders.
func TestMarkdownFieldsCannotBecomeMarkup(t *testing.T) {
	h := hostileMarkup
	res := &diff.Result{
		Old: diff.Version{Ecosystem: "npm", Name: "n" + h, Version: "1" + h}, New: diff.Version{Ecosystem: "npm", Name: "n" + h, Version: "2" + h},
		Findings: []policy.Finding{{Severity: policy.High, Kind: "host", Phase: "call:" + h, Subject: h, Summary: "s" + h, Evidence: "e" + h}},
		Changes:  []diff.Change{{Op: diff.Added, Area: m.AreaDNS, Phase: "p" + h, Subject: "sub" + h, Detail: "d" + h}},
		Verdict:  m.VerdictFail, FailOn: policy.High,
		AcceptedRisk: &m.AcceptedRisk{Reason: "r" + h, At: "a" + h},
	}
	reports := []DiffReport{
		{Server: "srv" + h, Baseline: true, Result: res, NotAcceptable: "na" + h},
		{Server: "bad" + h, Error: "err" + h},
	}
	var out bytes.Buffer
	if err := WriteDiffs(&out, FormatMarkdown, reports); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(out.String(), "\n") {
		text := codeSpan.ReplaceAllString(line, "<code></code>")
		if loc := markupLeaks.FindStringIndex(text); loc != nil {
			t.Errorf("line %d renders markup %q:\n%s", i+1, text[loc[0]:loc[1]], line)
		}
	}
}
