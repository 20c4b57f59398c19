package action

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// publish reports through the job summary, the report file, SARIF, the
// step outputs and annotations.
func (r *run) publish(reports []report.DiffReport, md []byte) error {
	r.a.AddStepSummary(string(md))
	reportPath, err := r.writeReport(md)
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	r.a.SetOutput("report", reportPath)
	var page bytes.Buffer
	if err := report.WriteDiffs(&page, report.FormatHTML, reports); err != nil {
		return err
	}
	htmlPath, err := r.writeWorkspaceFile(htmlReportFile, page.Bytes())
	if err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	r.a.SetOutput("html-report", htmlPath)
	lines := serverLines(r.cfg)
	if r.in.SARIF != "" {
		var buf bytes.Buffer
		if err := (report.SARIF{ConfigPath: r.in.Config, Lines: r.cfg.ReportLines(), Version: r.env.Version}).Write(&buf, reports); err != nil {
			return err
		}
		sp, err := r.writeWorkspaceFile(r.in.SARIF, buf.Bytes())
		if err != nil {
			return fmt.Errorf("writing SARIF: %w", err)
		}
		r.a.SetOutput("sarif", sp)
	}
	outputs(r.a, r.in.Config, lines, reports)
	return nil
}

// serverLines maps each server to its line in the configuration, where
// annotations go.
func serverLines(cfg *config.Config) map[string]int {
	out := map[string]int{}
	for _, s := range cfg.Servers {
		out[s.Name] = s.Line
	}
	return out
}

// outputs sets the step outputs and annotates the configuration lines of
// servers that fail the policy.
func outputs(a *githubactions.Action, cfgRel string, lines map[string]int, reports []report.DiffReport) {
	verdict := m.VerdictPass
	counts := map[string]int{}
	total := 0
	for _, r := range reports {
		if r.Error != "" {
			verdict = "error"
			a.WithFieldsMap(map[string]string{"file": cfgRel, "line": strconv.Itoa(lines[r.Server]), "title": "mcp-audit: " + r.Server}).
				Errorf("the audit could not run: %s", textsafe.Line(r.Error, 4000))
			continue
		}
		for k, v := range r.Result.Counts {
			counts[k] += v
			total += v
		}
		switch r.Result.Verdict {
		case m.VerdictFail:
			if verdict == m.VerdictPass || verdict == m.VerdictIncomplete {
				verdict = m.VerdictFail
			}
			annotateFindings(a, cfgRel, lines[r.Server], r)
		case m.VerdictIncomplete:
			if verdict == m.VerdictPass {
				verdict = m.VerdictIncomplete
			}
			a.WithFieldsMap(map[string]string{"file": cfgRel, "line": strconv.Itoa(max(1, lines[r.Server])), "title": "mcp-audit: " + r.Server + " incomplete"}).
				Warningf("not audited as a verdict needs: %s", textsafe.Line(strings.Join(r.Result.Incomplete, "; "), 4000))
		}
	}
	a.SetOutput("verdict", verdict)
	a.SetOutput("findings", strconv.Itoa(total))
	for s := policy.Critical; s >= policy.Info; s-- {
		a.SetOutput(s.String(), strconv.Itoa(counts[s.String()]))
	}
}

// annotateFindings puts one error annotation per failing finding on the
// server's configuration line.
func annotateFindings(a *githubactions.Action, cfgRel string, line int, r report.DiffReport) {
	for _, f := range r.Result.Findings {
		if f.Severity < r.Result.FailOn {
			continue
		}
		msg := fmt.Sprintf("%s %s: %s", r.Result.New.Name, r.Result.New.Version, f.Summary)
		if f.Evidence != "" {
			msg += " (" + f.Evidence + ")"
		}
		a.WithFieldsMap(map[string]string{"file": cfgRel, "line": strconv.Itoa(line),
			"title": "mcp-audit: " + textsafe.Line(r.Server, 200) + " " + f.Severity.String()}).Errorf("%s", textsafe.Line(msg, 4000))
	}
}

// artifactLink is the report's line pointing at the side-by-side view,
// when the workflow uploads it as an artifact (input report-artifact):
// the run's page lists its artifacts. The artifact's name is the
// workflow's own input, shown as code.
func (r *run) artifactLink() string {
	if r.in.ReportArtifact == "" || r.ghctx.RunID == 0 || r.ghctx.Repository == "" {
		return ""
	}
	server := cmp.Or(r.ghctx.ServerURL, "https://github.com")
	return fmt.Sprintf("\nSide-by-side view of what changed: `report.html` in the `%s` artifact of [this run](%s/%s/actions/runs/%d).\n",
		strings.ReplaceAll(r.in.ReportArtifact, "`", ""), server, r.ghctx.Repository, r.ghctx.RunID)
}
