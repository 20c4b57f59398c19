package report

import (
	_ "embed"
	"html/template"
	"io"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// FormatHTML is the rug-pull view: one self-contained page with the old
// and the new version side by side.
const FormatHTML = "html"

//go:embed diff.html
var diffPageTemplate string

// diffPage is rendered by html/template, which escapes every value for its
// context; server-controlled text is also cleaned (textsafe), since bidi
// overrides and invisible characters would still repaint it. The page has
// no script.
var diffPage = template.Must(template.New("diff").Parse(diffPageTemplate))

// pageView is the page: a roll-up of several servers, then each one.
type pageView struct {
	Rollup  *rollupView
	Servers []diffView
}

type diffView struct {
	Title         string
	Reason        string // the verdict's reason (VerdictText)
	Old, New      string
	Baseline      bool
	Verdict       string
	Coverage      string
	Incomplete    []string
	Notes         []string
	Error         string
	Findings      []findingView
	Areas         []sideArea
	Changes       []string // when the manifests are not at hand
	Accept        string
	NotAcceptable string
	AcceptedRisk  string
}

type findingView struct{ Severity, Summary, Where, Evidence string }

// htmlDiffs renders the rug-pull view of every report, in the order
// given (WriteDiffs passes them most harmful first). A report without a
// baseline shows what the version does in one column: there is no
// "before".
func htmlDiffs(w io.Writer, reports []DiffReport) error {
	var views []diffView
	for _, r := range reports {
		v := diffView{Title: title(r), Baseline: r.Baseline, Error: textsafe.OneLine(r.Error, 2000),
			Accept: textsafe.Line(r.Accept, 1000), NotAcceptable: textsafe.Line(r.NotAcceptable, 1000)}
		if res := r.Result; res != nil {
			v.Old, v.New, v.Verdict, v.Reason = line(res.Old.Version), line(res.New.Version), res.Verdict, resultVerdict(r)
			v.Coverage = textsafe.Line(res.Coverage, 500)
			for _, s := range res.Incomplete {
				v.Incomplete = append(v.Incomplete, textsafe.Line(s, 1000))
			}
			for _, s := range r.Notes {
				v.Notes = append(v.Notes, textsafe.Line(s, 1000))
			}
			for _, f := range res.Findings {
				v.Findings = append(v.Findings, findingView{f.Severity.String(), textsafe.Line(f.Summary, 1000),
					textsafe.Line(f.Where(), 300), textsafe.Line(f.Evidence, 2000)})
			}
			if ar := res.AcceptedRisk; ar != nil {
				v.AcceptedRisk = textsafe.Line(ar.At+": "+ar.Reason, 1000)
			}
			if r.New != nil {
				v.Areas = sideBySide(r.Old, r.New)
			} else {
				for _, c := range res.Changes {
					v.Changes = append(v.Changes, textsafe.Line(c.Op+" "+c.Area+" "+c.Subject+" "+c.Detail, 1000))
				}
			}
		}
		views = append(views, v)
	}
	page := pageView{Servers: views}
	if len(reports) > 1 {
		ru := rollup(reports)
		page.Rollup = &ru
	}
	return diffPage.Execute(w, page)
}
