package action

import (
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// KindAcceptedRisk marks a pull request that records harmful findings as an
// accepted risk in a baseline: a reviewer must see it as such.
const KindAcceptedRisk = "accepted-risk"

// riskyBaseline is a baseline file the pull request adds or changes that
// accepts harmful findings.
type riskyBaseline struct {
	server, file string
	risk         *m.AcceptedRisk
}

// acceptedRiskBaselines lists the baselines changed since base whose HEAD
// content records an accepted risk.
func acceptedRiskBaselines(ws, base string, head *config.Config) []riskyBaseline {
	var risky []riskyBaseline
	for _, b := range baselinesAtHead(ws, base, head) {
		if b.man == nil || b.man.AcceptedRisk == nil {
			continue
		}
		name := b.man.Target.Name
		if s := head.ServerForPackage(name); s != nil {
			name = s.Name
		}
		risky = append(risky, riskyBaseline{server: name, file: b.file, risk: b.man.AcceptedRisk})
	}
	return risky
}

// flagAcceptedRisk adds a high finding to each server's report for every
// baseline in the pull request that accepts a risk, and fails it.
func flagAcceptedRisk(reports []report.DiffReport, risky []riskyBaseline) []report.DiffReport {
	for _, rb := range risky {
		f := policy.Finding{Severity: policy.High, Kind: KindAcceptedRisk, Subject: rb.file,
			Summary:  "this pull request records harmful findings as an accepted risk in a baseline: " + textsafe.Line(rb.risk.Reason, 500),
			Evidence: strings.Join(rb.risk.Findings, "; ")}
		reports = addFinding(reports, rb.server, f)
	}
	return reports
}

// addFinding adds f to the report of server, or to a new report of its
// own when the check made none, and fails it.
func addFinding(reports []report.DiffReport, server string, f policy.Finding) []report.DiffReport {
	i := -1
	for j := range reports {
		if reports[j].Server == server && reports[j].Result != nil {
			i = j
		}
	}
	if i < 0 {
		reports = append(reports, report.DiffReport{Server: server, Baseline: true, Result: &diff.Result{
			New: diff.Version{Name: server}, Changes: []diff.Change{}, FailOn: policy.DefaultFailOn}})
		i = len(reports) - 1
	}
	res := reports[i].Result
	res.Findings = append(res.Findings, f)
	res.Verdict = m.VerdictFail
	res.Counts = policy.Counts(res.Findings)
	return reports
}
