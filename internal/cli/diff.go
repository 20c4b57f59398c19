package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runDiff(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "diff")
	format := registerFormat(fs, " (html: the side-by-side rug-pull view)")
	failOn := fs.String("fail-on", policy.DefaultFailOn.String(), "exit 1 when a finding is at or above this severity")
	allowIncomplete := fs.Bool("allow-incomplete", false, "a candidate whose audit is incomplete passes with a warning instead of exiting 4")
	cfgPath := fs.String("config", "", "take allow-lists from this configuration…")
	server := fs.String("server", "", "…for this server")
	out := fs.String("o", "", "write the report here (default: stdout)")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: diff takes two manifests, OLD and NEW", verdict.ErrUsage)
	}
	if err := checkOutput("o", *out); err != nil {
		return err
	}
	sev, err := policy.ParseSeverity(*failOn)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	pol := policy.Policy{FailOn: sev, AllowIncomplete: *allowIncomplete}
	var cfg *config.Config
	if *cfgPath != "" {
		if cfg, err = loadConfig(*cfgPath); err != nil {
			return err
		}
		s := cfg.Server(*server)
		if s == nil {
			return fmt.Errorf("%w: --config needs --server naming one of its servers", verdict.ErrUsage)
		}
		pol.Allow = s.Allow
	}
	var mans [2]*m.Manifest
	for i, f := range pos {
		if mans[i], err = readManifest(f); err != nil {
			return err
		}
	}
	r := diff.Compare(mans[0], mans[1], pol)
	name := cmp.Or(*server, mans[1].Target.Name)
	return finishReports(env, format, *out, cfg, []report.DiffReport{{Server: name, Baseline: true, Result: r, Old: mans[0], New: mans[1]}})
}

// readManifest reads a manifest named on the command line; a missing or
// invalid file is a usage error.
func readManifest(f string) (*m.Manifest, error) {
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	return decodeManifest(f, data)
}
