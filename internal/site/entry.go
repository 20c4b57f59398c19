package site

import (
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// SeverityNone is an entry's severity when its changes raised no finding.
const SeverityNone = "none"

// newEntry records a comparison as a feed entry. Its id depends only on
// the server and the two versions, so it is the same whenever and wherever
// the site is published; its text is cleaned here, once, for every reader
// of changes.json.
func newEntry(res *diff.Result, published string) Entry {
	e := Entry{
		ID:        uuidURN("mcp-audit change\x00" + res.New.Ecosystem + "\x00" + res.New.Name + "\x00" + res.Old.Version + "\x00" + res.New.Version),
		Published: published, Ecosystem: res.New.Ecosystem, Name: res.New.Name, OldVersion: res.Old.Version, NewVersion: res.New.Version,
		Severity: SeverityNone, Verdict: res.Verdict, FailOn: res.FailOn, Counts: res.Counts,
		Findings: []policy.Finding{}, Changes: []diff.Change{},
	}
	if e.Counts == nil {
		e.Counts = map[string]int{}
	}
	for _, f := range res.Findings {
		e.Findings = append(e.Findings, policy.Finding{Severity: f.Severity, Kind: textsafe.Line(f.Kind, 100), Phase: textsafe.Line(f.Phase, 300),
			Subject: textsafe.Line(f.Subject, 500), Summary: textsafe.Line(f.Summary, 1000), Evidence: textsafe.Line(f.Evidence, 2000)})
	}
	if len(res.Findings) > 0 {
		e.Severity = res.Findings[0].Severity.String() // findings are sorted worst first
	}
	for _, c := range res.Changes {
		e.Changes = append(e.Changes, diff.Change{Op: c.Op, Area: c.Area, Phase: textsafe.Line(c.Phase, 300),
			Subject: textsafe.Line(c.Subject, 500), Detail: textsafe.Line(c.Detail, 1000)})
	}
	e.Title = fmt.Sprintf("[%s] %s %s → %s: %s", e.Severity, e.Name, e.OldVersion, e.NewVersion, e.headline())
	return e
}

// headline says what changed, for a feed reader's list: the worst
// finding, else the first change, and how many more there are.
func (e Entry) headline() string {
	more := func(n int, one, many string) string {
		switch {
		case n == 1:
			return "; 1 more " + one
		case n > 1:
			return fmt.Sprintf("; %d more %s", n, many)
		}
		return ""
	}
	if len(e.Findings) > 0 {
		f := e.Findings[0]
		where := ""
		if f.Phase != "" {
			where = " [" + f.Phase + "]"
		}
		return textsafe.Line(f.Summary+where, 160) + more(len(e.Findings)-1, "finding", "findings") +
			fmt.Sprintf("; %d behavior change(s)", len(e.Changes))
	}
	if len(e.Changes) > 0 {
		c := e.Changes[0]
		return textsafe.Line(c.Op+" "+c.Area+" "+c.Subject, 160) + more(len(e.Changes)-1, "change", "changes")
	}
	return "no behavior change"
}

// text renders an entry as the diff report renders a comparison, so the
// feed says what a rug-pull check would say.
func (e Entry) text() string {
	var b strings.Builder
	res := &diff.Result{Old: diff.Version{Ecosystem: e.Ecosystem, Name: e.Name, Version: e.OldVersion},
		New:     diff.Version{Ecosystem: e.Ecosystem, Name: e.Name, Version: e.NewVersion},
		Changes: e.Changes, Findings: e.Findings, FailOn: e.FailOn, Verdict: e.Verdict, Counts: e.Counts}
	report.WriteDiffs(&b, report.FormatText, []report.DiffReport{{Baseline: true, Result: res}})
	return b.String()
}
