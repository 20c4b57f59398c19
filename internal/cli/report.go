package cli

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runReport re-judges stored manifests under the current policy: after a
// policy or allow-list change, nothing needs auditing again.
func runReport(ctx context.Context, env *Env, args []string) error {
	fl := newFlagSet(env, "report")
	format := registerFormat(fl, " (sarif: results on each server's version line in --config)")
	failOn := fl.String("fail-on", "", "exit 1 when a finding is at or above this severity (default: the configuration's, else high)")
	allowIncomplete := fl.Bool("allow-incomplete", false, "an incomplete audit passes with a warning instead of exiting 4")
	cfgPath := fl.String("config", "", "judge with this configuration's policy and allow-lists…")
	server := fl.String("server", "", "…of this server (default: the server auditing each manifest's package)")
	out := fl.String("o", "", "write the report here (default: stdout)")
	pos, _, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fl.Usage()
		return fmt.Errorf("%w: report takes manifests or batch result directories", verdict.ErrUsage)
	}
	if err := checkOutput("o", *out); err != nil {
		return err
	}
	var cfg *config.Config
	if *cfgPath != "" {
		if cfg, err = loadConfig(*cfgPath); err != nil {
			return err
		}
	}
	files, err := manifestFiles(pos)
	if err != nil {
		return err
	}
	var reports []report.DiffReport
	var mans []*m.Manifest
	for _, f := range files {
		man, err := readManifest(f)
		if err != nil {
			return err
		}
		name, pol, err := reportPolicy(cfg, *server, *failOn, man)
		if err != nil {
			return err
		}
		pol.AllowIncomplete = pol.AllowIncomplete || *allowIncomplete
		mans = append(mans, man)
		reports = append(reports, judged(name, man, pol))
	}
	return writeReport(env, string(*format), *out, cfg, mans, reports)
}

// reportPolicy is the policy a manifest is judged under: the named
// server's, the server auditing its package, or the defaults.
func reportPolicy(cfg *config.Config, server, failOn string, man *m.Manifest) (string, policy.Policy, error) {
	pol := policy.Policy{FailOn: policy.DefaultFailOn}
	name := man.Target.Name
	if cfg != nil {
		var s *config.Server
		if server != "" {
			if s = cfg.Server(server); s == nil {
				return "", pol, fmt.Errorf("%w: no server %q in %s", verdict.ErrUsage, server, cfg.Path)
			}
		}
		if s == nil {
			s = cfg.ServerForPackage(man.Target.Name)
		}
		if s != nil {
			name, pol = s.Name, cfg.Policy(s, failOn)
			return name, pol, nil
		}
	}
	if failOn != "" {
		sev, err := policy.ParseSeverity(failOn)
		if err != nil {
			return "", pol, fmt.Errorf("%w: --fail-on: %w", verdict.ErrUsage, err)
		}
		pol.FailOn = sev
	}
	return name, pol, nil
}

// manifestFiles expands directories (batch results) into the manifests
// under them, sorted.
func manifestFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		if !isDir(a) {
			files = append(files, a)
			continue
		}
		root := a
		if isDir(filepath.Join(a, "manifests")) {
			root = filepath.Join(a, "manifests")
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".evidence.json") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no manifests found in %s", verdict.ErrUsage, strings.Join(args, ", "))
	}
	return files, nil
}

// judged is one manifest's report under pol, the same for report and
// audit: its findings, the allow-list that would accept it, and the
// manifest for the HTML view.
func judged(name string, man *m.Manifest, pol policy.Policy) report.DiffReport {
	res := diff.Judge(man, pol)
	return report.DiffReport{Server: name, Result: res, SuggestedAllow: check.Suggestion(man, pol, res.Findings), New: man}
}

// writeReport renders the judged manifests in a format and maps them to
// audit's exit codes.
func writeReport(env *Env, format, out string, cfg *config.Config, mans []*m.Manifest, reports []report.DiffReport) error {
	var buf bytes.Buffer
	if format == report.FormatText {
		// Most harmful first, under one roll-up, as in every format.
		reports = report.Ordered(reports)
		if len(reports) > 1 {
			report.WriteRollup(&buf, reports)
		}
		for i, r := range reports {
			if i > 0 {
				buf.WriteString("\n")
			}
			report.Summary(&buf, r.New, r.Result.Findings, r.Result.Policy())
			if r.SuggestedAllow != nil {
				report.AllowBlock(&buf, *r.SuggestedAllow, "")
			}
		}
	} else if err := renderReports(&buf, format, cfg, reports); err != nil {
		return err
	}
	if err := emit(env, out, buf.Bytes()); err != nil {
		return err
	}
	return check.Outcome(reports)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
