package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/export"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runExport turns a manifest into an allow-list. Like batch and publish,
// it writes none for a version that fails or whose audit is incomplete:
// an allow-list would permit what a harmful version did, or only the part
// of a server the audit saw.
func runExport(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "export")
	format := fs.String("format", "toolhive", "toolhive (permission profile JSON) or docker (catalog allowHosts YAML)")
	failOn := fs.String("fail-on", policy.DefaultFailOn.String(), "refuse a manifest with a finding at or above this severity (harmful findings always)")
	allowIncomplete := fs.Bool("allow-incomplete", false, "export the allow-list of an incomplete audit too")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: usage: mcp-audit export [--format toolhive|docker] MANIFEST", verdict.ErrUsage)
	}
	if err := oneOf("format", *format, "toolhive", "docker"); err != nil {
		return err
	}
	sev, err := policy.ParseSeverity(*failOn)
	if err != nil {
		return fmt.Errorf("%w: --fail-on: %w", verdict.ErrUsage, err)
	}
	man, err := readManifest(pos[0])
	if err != nil {
		return err
	}
	res := diff.Judge(man, policy.Policy{FailOn: sev, AllowIncomplete: *allowIncomplete})
	switch res.Verdict {
	case m.VerdictFail:
		fmt.Fprintf(env.Stderr, "mcp-audit: no allow-list for %s %s: %s; an allow-list would permit what it did\n",
			textsafe.Line(man.Target.Name, 200), textsafe.Line(man.Target.Version, 100), report.VerdictText(res.Verdict, res.Findings, res.Policy(), res.Incomplete))
		return verdict.ErrFindings
	case m.VerdictIncomplete:
		fmt.Fprintf(env.Stderr, "mcp-audit: no allow-list for %s %s: the audit is incomplete (%s); --allow-incomplete to export what was seen\n",
			textsafe.Line(man.Target.Name, 200), textsafe.Line(man.Target.Version, 100), textsafe.Line(strings.Join(res.Incomplete, "; "), 1000))
		return verdict.ErrIncomplete
	}
	if *format == "docker" {
		_, err := env.Stdout.Write(export.DockerAllowHosts(man))
		return err
	}
	b, err := export.ToolHive(man)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(b)
	return err
}
