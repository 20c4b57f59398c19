package batch

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

//go:embed report.html
var reportTemplate string

// The page is rendered in Go by html/template, which escapes every value
// for its context; the page's script only filters what is there.
var reportPage = template.Must(template.New("report").Parse(reportTemplate))

// firstFindings is how many findings a card shows before "N more".
const firstFindings = 8

type htmlFinding struct {
	Severity string
	SevRank  int
	Kind     string
	Phase    string
	Summary  string
	Evidence string
}

type sevCount struct {
	Sev string
	N   int
}

// Link is a link on a server's card: its label and where it goes, relative
// to the page.
type Link struct{ Label, Href string }

// serverView is one server on the page.
type serverView struct {
	ID                                      string
	Server, Target, Version, Status, Reason string
	Verdict                                 string
	Counts                                  []sevCount
	Cells                                   []cell
	Lane                                    []laneSeg
	Hosts                                   []hostGroup
	Links                                   []Link
	Findings, More                          []htmlFinding
	Tools                                   int
	Search                                  string
	rank                                    report.Harm
	hostNames                               []string
}

type tileView struct {
	N     int
	Label string
}

type hostRow struct{ Host, Servers string }

type pageView struct {
	Generated string
	Columns   []string
	Tiles     []tileView
	Kinds     []string
	Statuses  []string
	Servers   []*serverView
	Hosts     []hostRow
}

// Links are the links of a server's card; a page served elsewhere than
// the results directory (the published site) gives its own.
type Links func(r Record) []Link

// resultsLinks are the links of a card in the results directory: the
// manifest, the record with the findings and evidence, and the allow-list
// files published for it (profiles, by server).
func resultsLinks(profiles map[string][]Link) Links {
	return func(r Record) []Link {
		var out []Link
		if r.Manifest != "" {
			out = append(out, Link{"manifest", relLink(r.Manifest)})
		}
		if r.Status != "" {
			out = append(out, Link{"findings and evidence", relLink("records/" + filepath.Base(recordPath("", r.Server)))})
		}
		return append(out, profiles[r.Server]...)
	}
}

// htmlReport renders the self-contained report with each card's links.
func htmlReport(es []entry, now string, links Links) ([]byte, error) {
	pv := pageView{Generated: now}
	for _, c := range matrixCols {
		pv.Columns = append(pv.Columns, c.Label)
	}
	kinds, statuses := map[string]bool{}, map[string]bool{}
	for i, e := range es {
		s := serverOf(e, links(e.Record))
		s.ID = fmt.Sprintf("s%d", i)
		for _, f := range e.Findings {
			kinds[line(f.Kind)] = true
		}
		statuses[s.Status] = true
		pv.Servers = append(pv.Servers, s)
	}
	slices.SortStableFunc(pv.Servers, harm)
	pv.Kinds, pv.Statuses = sortedKeys(kinds), sortedKeys(statuses)
	pv.Tiles = tiles(es)
	pv.Hosts = hostTable(pv.Servers)
	var buf bytes.Buffer
	if err := reportPage.Execute(&buf, pv); err != nil {
		return nil, fmt.Errorf("rendering report.html: %w", err)
	}
	return buf.Bytes(), nil
}

// serverOf builds a server's view. Server-controlled text is cleaned here
// as in every renderer: html/template escapes markup, but bidi overrides
// and invisible characters would still repaint a host name.
func serverOf(e entry, links []Link) *serverView {
	s := &serverView{Server: line(e.Server), Target: line(shownTarget(e.Target)), Version: line(e.Version),
		Reason: textsafe.OneLine(e.Reason, 600), Verdict: line(e.Verdict), Status: line(e.Outcome), rank: rankOf(e),
		Cells: matrixRow(e.Findings)}
	if e.Status == StatusFailed {
		s.Status = "not audited"
	}
	for sev := policy.Critical; sev >= policy.Info; sev-- {
		if n := e.Counts[sev.String()]; n > 0 {
			s.Counts = append(s.Counts, sevCount{sev.String(), n})
		}
	}
	var all []htmlFinding
	for _, f := range e.Findings {
		all = append(all, htmlFinding{Severity: f.Severity.String(), SevRank: int(f.Severity), Kind: line(f.Kind),
			Phase: textsafe.Line(f.Where(), 600), Summary: textsafe.Line(f.Summary, 1000), Evidence: textsafe.Line(f.Evidence, 2000)})
	}
	s.Findings, s.More = all[:min(len(all), firstFindings)], all[min(len(all), firstFindings):]
	s.Links = links
	if e.man != nil {
		s.Tools = len(e.man.Tools)
		s.Lane = laneOf(e.man)
		s.Hosts = hostPanel(e.man)
		for _, h := range hostsOf(e.man) {
			s.hostNames = append(s.hostNames, line(h))
		}
	}
	hay := []string{s.Server, s.Target, strings.Join(s.hostNames, " ")}
	for _, f := range all {
		hay = append(hay, f.Summary, f.Evidence)
	}
	s.Search = strings.ToLower(strings.Join(hay, " "))
	return s
}

func tiles(es []entry) []tileView {
	count := func(f func(e entry) bool) int {
		n := 0
		for _, e := range es {
			if f(e) {
				n++
			}
		}
		return n
	}
	anyFinding := func(e entry, ok func(policy.Finding) bool) bool { return slices.ContainsFunc(e.Findings, ok) }
	return []tileView{
		{len(es), "servers"},
		{count(func(e entry) bool { return e.Status == StatusDone && e.Outcome == m.StatusOK }), "ran normally"},
		{count(func(e entry) bool { return e.Verdict == m.VerdictFail }), "fail policy"},
		{count(func(e entry) bool { return e.Verdict == m.VerdictIncomplete }), "incomplete: not audited as a verdict needs"},
		{count(func(e entry) bool { return anyFinding(e, report.RealCanary) }), "touch a planted canary"},
		{count(func(e entry) bool { return anyFinding(e, matrixCols[0].has) }), "contact hosts unprompted"},
		{count(func(e entry) bool { return anyFinding(e, kindIn(policy.KindCredential)) }), "send the credential they were given"},
		{count(func(e entry) bool { return e.Status != StatusDone || e.Outcome != m.StatusOK }), "did not run / not audited"},
	}
}

// hostTable lists every host with the servers (and phases) that used it.
func hostTable(ss []*serverView) []hostRow {
	by := map[string][]string{}
	for _, s := range ss {
		for _, h := range s.hostNames {
			host, phase, _ := strings.Cut(h, " (")
			v := s.Server + " (" + phase
			if !slices.Contains(by[host], v) {
				by[host] = append(by[host], v)
			}
		}
	}
	var out []hostRow
	for _, h := range sortedKeys(by) {
		out = append(out, hostRow{h, strings.Join(by[h], ", ")})
	}
	return out
}

func sortedKeys[V any](mp map[string]V) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func countEgress(p m.Phase) int {
	n := 0
	for _, c := range p.Network {
		if c.Category == m.ConnEgress {
			n++
		}
	}
	return n
}

// hostsOf lists "host:port (phase)" of egress endpoints and names looked up.
func hostsOf(man *m.Manifest) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range man.Phases {
		add := func(h string) {
			key := h + " (" + p.Name + ")"
			if !seen[key] {
				seen[key] = true
				out = append(out, key)
			}
		}
		for _, c := range p.Network {
			if c.Category == m.ConnEgress {
				h := c.Name
				if h == "" {
					h = c.Address
				}
				add(fmt.Sprintf("%s:%d", h, c.Port))
			}
		}
		for _, d := range p.DNS {
			add(d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// line is a server-controlled name on the page: one line, clean, bounded.
func line(s string) string { return textsafe.Line(s, 300) }
