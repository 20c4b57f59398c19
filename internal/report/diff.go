package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Formats for diff reports.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// DiffReport is one server's comparison with context for rendering.
type DiffReport struct {
	// Server is the name in the configuration, or the package's name for
	// an ad-hoc diff or report.
	Server string `json:"server"`
	// Baseline is false when there was no baseline: findings are then the
	// new version's absolute findings.
	Baseline bool         `json:"baseline"`
	Result   *diff.Result `json:"result"`
	// Accept is the command that records the new version as the baseline.
	Accept string `json:"accept,omitempty"`
	// NotAcceptable says why no accept command is offered: the version
	// shows findings that are harmful in themselves.
	NotAcceptable string `json:"not_acceptable,omitempty"`
	// SuggestedAllow, for a server without an allow-list, is the allow:
	// block that would accept what was observed (policy.SuggestAllow).
	SuggestedAllow *policy.Allow `json:"suggested_allow,omitempty"`
	// Error is set when the audit of this server could not run.
	Error string `json:"error,omitempty"`
	// Notes say what the check did that a reader must know (a baseline
	// audited again under the current method), and for scan where the
	// server is configured and what its configuration warns about.
	Notes []string `json:"notes,omitempty"`
	// SurfaceOnly marks a remote server audited from outside
	// (internal/remote): what it offered was judged, what it does was not
	// observed. Every renderer says so with the server's name.
	SurfaceOnly bool `json:"surface_only,omitempty"`
	// TooNew is set when the candidate was published too recently to be
	// accepted (check --min-release-age): it was not audited, and the
	// result is incomplete.
	TooNew *TooNew `json:"too_new,omitempty"`
	// Old and New are the compared manifests, when at hand, for the
	// side-by-side HTML view (Old is nil without a baseline).
	Old *m.Manifest `json:"-"`
	New *m.Manifest `json:"-"`
}

// TooNew is a candidate younger than the minimum release age.
type TooNew struct {
	Version string `json:"version"`
	// Published is when the registry says it was published (RFC 3339);
	// Eligible when it becomes old enough to be judged.
	Published string `json:"published"`
	Eligible  string `json:"eligible"`
	// Dependency names the youngest package of a new resolution of the
	// baseline's version (name@version), when that is what is too new.
	Dependency string `json:"dependency,omitempty"`
}

// ReportSchemaVersion is the version of the JSON report's format
// (schemas/report.schema.json); bump it on an incompatible change.
const ReportSchemaVersion = 1

// JSONReport is the JSON report: its format's version, the tool that
// wrote it, and the reports most harmful first.
type JSONReport struct {
	SchemaVersion int          `json:"schema_version"`
	Tool          ToolInfo     `json:"tool"`
	Reports       []DiffReport `json:"reports"`
}

// ToolInfo names the program that wrote an output.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// WriteDiffs renders reports in a format, most harmful first; a text,
// Markdown or HTML report of several servers starts with a roll-up.
func WriteDiffs(w io.Writer, format string, reports []DiffReport) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(JSONReport{SchemaVersion: ReportSchemaVersion, Tool: ToolInfo{"mcp-audit", buildinfo.Version()},
			Reports: nonNilReports(Ordered(reports))})
	case FormatMarkdown:
		return markdownDiffs(w, reports)
	case FormatHTML:
		return htmlDiffs(w, Ordered(reports))
	case FormatText, "":
		reports = Ordered(reports)
		if len(reports) > 1 {
			WriteRollup(w, reports)
		}
		for i, r := range reports {
			if i > 0 {
				fmt.Fprintln(w)
			}
			textDiff(w, r)
		}
		return nil
	}
	return fmt.Errorf("unknown format %q (want text, json, markdown or html)", format)
}

// nonNilReports gives the JSON report [] for every empty list, as its
// schema says: the reports, and the suggested allow-lists' entries.
func nonNilReports(r []DiffReport) []DiffReport {
	out := []DiffReport{}
	for _, x := range r {
		if a := x.SuggestedAllow; a != nil {
			c := *a
			for _, l := range []*[]string{&c.Hosts, &c.Paths, &c.Processes} {
				if *l == nil {
					*l = []string{}
				}
			}
			x.SuggestedAllow = &c
		}
		out = append(out, x)
	}
	return out
}

// SurfaceMark follows the name of a server audited surface only.
const SurfaceMark = "[SURFACE ONLY: remote, not sandboxed]"

func title(r DiffReport) string {
	t := baseTitle(r)
	if r.SurfaceOnly {
		t += " " + SurfaceMark
	}
	return t
}

func baseTitle(r DiffReport) string {
	if r.Result == nil {
		return line(r.Server)
	}
	name := line(r.Result.New.Name)
	if r.Server != "" && r.Server != name {
		name = line(r.Server) + " (" + name + ")"
	}
	if !r.Baseline {
		return fmt.Sprintf("%s %s (no baseline)", name, line(r.Result.New.Version))
	}
	return fmt.Sprintf("%s %s → %s", name, line(r.Result.Old.Version), line(r.Result.New.Version))
}

func textDiff(w io.Writer, r DiffReport) {
	fmt.Fprintf(w, "mcp-audit diff: %s\n", title(r))
	if r.Error != "" {
		fmt.Fprintf(w, "  audit failed: %s\n", textsafe.Line(r.Error, 2000))
		return
	}
	res := r.Result
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", textsafe.Line(n, 1000))
	}
	if res.Coverage != "" {
		fmt.Fprintf(w, "  %s\n", textsafe.Line(res.Coverage, 500))
	}
	if r.New != nil && r.New.Run.CodeCoverage != nil {
		was := "not measured"
		if r.Old != nil && r.Old.Run.CodeCoverage != nil {
			was = CodeLine(r.Old.Run.CodeCoverage)
		}
		fmt.Fprintf(w, "  code:    %s; baseline: %s\n", CodeLine(r.New.Run.CodeCoverage), was)
	}
	if len(res.Findings) == 0 {
		fmt.Fprintln(w, "findings: none")
	} else {
		fmt.Fprintf(w, "findings: %d\n", len(res.Findings))
		for _, f := range res.Findings {
			writeFinding(w, f)
		}
	}
	if len(res.Changes) > 0 {
		fmt.Fprintf(w, "changes: %d\n", len(res.Changes))
		for _, c := range res.Changes {
			sign := map[string]string{diff.Added: "+", diff.Removed: "-", diff.Changed: "~"}[c.Op]
			where := ""
			if c.Phase != "" {
				where = " [" + line(c.Phase) + "]"
			}
			text := fmt.Sprintf("  %s %-8s %s%s", sign, c.Area, textsafe.Line(c.Subject, 500), where)
			if c.Detail != "" {
				text += ": " + textsafe.Line(c.Detail, 1000)
			}
			fmt.Fprintln(w, text)
		}
	} else {
		fmt.Fprintln(w, "changes: none")
	}
	if ar := res.AcceptedRisk; ar != nil {
		fmt.Fprintf(w, "accepted risk (recorded in the baseline %s): %s\n", line(ar.At), textsafe.Line(ar.Reason, 1000))
	}
	fmt.Fprintf(w, "verdict: %s\n", resultVerdict(r))
	for _, reason := range res.Incomplete {
		fmt.Fprintf(w, "  incomplete: %s\n", textsafe.Line(reason, 1000))
	}
	switch {
	case r.NotAcceptable != "":
		fmt.Fprintf(w, "not offered as a baseline: %s\n", r.NotAcceptable)
	case r.Accept != "" && len(res.Findings) > 0:
		fmt.Fprintf(w, "to accept this version as the new baseline: %s\n", r.Accept)
	}
	if r.SuggestedAllow != nil {
		AllowBlock(w, *r.SuggestedAllow, "")
	}
}

// MarkdownMarker is the hidden marker of mcp-audit's sticky PR comment.
const MarkdownMarker = "<!-- mcp-audit-report -->"

var icons = map[policy.Severity]string{policy.Critical: "🔴", policy.High: "🟠", policy.Medium: "🟡", policy.Low: "🔵", policy.Info: "⚪"}

// md and mdCode are the report's names for textsafe's Markdown escaping.
// md also keeps GitHub from making mentions and issue references of the
// text: it finds them in the rendered text, where a backslash escape is
// gone, so a zero-width space follows each @ and # instead (as Dependabot
// does); inside mdCode's <code> GitHub looks for none.
func md(s string) string { return noRefs.Replace(textsafe.Markdown(s, 600)) }

var noRefs = strings.NewReplacer(`\@`, "@\u200b", `\#`, "#\u200b")

func mdCode(s string) string { return textsafe.MarkdownCode(s, 300) }
