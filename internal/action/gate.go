package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// gate is a pull request's check under the base commit's policy: the
// configuration to check with, and what the pull request changes in the
// policy.
type gate struct {
	cfg     *config.Config // head's servers, the base's policy and baselines
	base    *config.Config // the base commit's configuration, nil when none
	changes []policyChange
	tmp     string
}

// newGate reads the base commit's policy and baselines. Without a base
// commit (a malformed event) the head's policy stands: nothing to compare.
func newGate(ws, cfgRel, base string, head *config.Config) (*gate, error) {
	g := &gate{cfg: head}
	if base == "" {
		return g, nil
	}
	tmp, err := os.MkdirTemp("", "mcp-audit-base-*")
	if err != nil {
		return nil, fmt.Errorf("making a directory for the base's baselines: %w", err)
	}
	g.tmp = tmp
	baseCfg := baseConfig(ws, cfgRel, base)
	// The base's baselines sit where the base's configuration says.
	from := head
	if baseCfg != nil {
		from = baseCfg
	}
	rel, err := filepath.Rel(ws, from.BaselineDir())
	if err != nil {
		g.close()
		return nil, err
	}
	dir, err := extractBaselines(ws, base, rel, tmp)
	if err != nil {
		g.close()
		return nil, err
	}
	g.cfg, g.base = underBasePolicy(head, baseCfg, dir), baseCfg
	g.changes = append(policyChanges(baseCfg, head), baselineChanges(ws, base, head, dir)...)
	return g, nil
}

func (g *gate) close() {
	if g.tmp != "" {
		os.RemoveAll(g.tmp)
	}
}

// loosened reports whether the pull request loosens the policy.
func (g *gate) loosened() bool {
	for _, c := range g.changes {
		if c.Loosens {
			return true
		}
	}
	return false
}

// flag adds a policy-loosened finding for every loosening change to the
// report of its server (a report of the configuration file for file-wide
// settings), failing it.
func (g *gate) flag(reports []report.DiffReport, cfgRel string) []report.DiffReport {
	for _, c := range g.changes {
		if c.Loosens {
			reports = addFinding(reports, cmpOr(c.Server, cfgRel), c.finding())
		}
	}
	return reports
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// note renders the policy changes for the comment and the job summary.
// Every value comes from the pull request: code spans, never markup.
func (g *gate) note() string {
	if len(g.changes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Policy changes in this pull request\n\n" +
		"This pull request is checked under the base commit's policy and baselines. ")
	if g.loosened() {
		b.WriteString("It **loosens** them: each loosening is a `policy-loosened` finding that fails the check " +
			"until the change is merged by a reviewer.\n")
	} else {
		b.WriteString("None of its changes loosens them.\n")
	}
	b.WriteString("\n| | Server | Setting | Base | This pull request |\n|---|---|---|---|---|\n")
	for _, c := range g.changes {
		mark := ""
		if c.Loosens {
			mark = "⚠️ loosens"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mark, textsafe.MarkdownCode(c.Server, 200),
			textsafe.MarkdownCode(c.Setting, 200), textsafe.MarkdownCode(c.From, 300), textsafe.MarkdownCode(c.To, 300))
	}
	return b.String()
}
