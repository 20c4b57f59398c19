package check

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// UpdateOptions is what `baseline update` records.
type UpdateOptions struct {
	Servers []string // empty: all
	// Version is the version to record; it needs exactly one server.
	// Empty: the candidate a check would audit (pinned, or newest in range).
	Version string
	Runs    int
	// AcceptRisk, when set, records harmful findings as an accepted risk
	// with this reason instead of refusing the baseline.
	AcceptRisk string
	// Base carries the caller's audit settings; see Options.Base.
	Base audit.Options
	// Audit audits a server (nil: audit.RunStable).
	Audit audit.Func
}

// UpdateBaselines audits the selected servers and records each manifest as
// the server's baseline, returning the files written.
func UpdateBaselines(ctx context.Context, deps audit.Deps, cfg *config.Config, o UpdateOptions) ([]string, error) {
	c := newChecker(cfg, deps, Options{Runs: o.Runs, Base: o.Base, Audit: o.Audit})
	selected, err := c.selected(o.Servers)
	if err != nil {
		return nil, err
	}
	if o.Version != "" && len(selected) != 1 {
		return nil, fmt.Errorf("%w: --version needs exactly one --server", verdict.ErrUsage)
	}
	var written []string
	for _, s := range selected {
		tgt := ""
		switch {
		case o.Version != "" && s.Spec.Ecosystem().Registry:
			tgt = pinned(s, o.Version).spec
		default:
			cands, err := c.candidates(ctx, s, "")
			if err != nil {
				return written, fmt.Errorf("%w: %s: %v", audit.ErrRuntime, s.Name, err)
			}
			tgt = cands[0].spec
		}
		res, err := c.audit(ctx, c.deps, c.auditOptions(s, tgt), o.Runs)
		if err != nil {
			return written, err
		}
		harmful := policy.HarmfulOnes(policy.Evaluate(res.Manifest, c.policy(s)))
		if err := guardBaseline(res.Manifest, harmful, o.AcceptRisk, time.Now()); err != nil {
			return written, err
		}
		if reasons := coverage.Incomplete(res.Manifest); len(reasons) > 0 && !c.policy(s).AllowIncomplete && o.AcceptRisk == "" {
			// A baseline is what later versions are compared with: one of
			// a server that was not audited would launder what it hid.
			return written, fmt.Errorf("%w: %s %s was not audited as a verdict needs (%s); not recorded as a baseline (allow_incomplete: or --accept-risk to record it anyway)",
				verdict.ErrIncomplete, s.Name, res.Manifest.Target.Version, strings.Join(reasons, "; "))
		}
		p, err := baseline.Write(cfg.BaselineDir(), res.Manifest)
		if err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// RecordManifests records already audited manifest files as baselines
// without auditing, returning the files written.
func RecordManifests(cfg *config.Config, files []string, acceptRisk string) ([]string, error) {
	var written []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return written, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
		}
		man, err := m.Decode(data)
		if err != nil {
			return written, fmt.Errorf("%w: %s: %v", verdict.ErrUsage, f, err)
		}
		if err := guardBaseline(man, HarmfulFor(cfg, man), acceptRisk, time.Now()); err != nil {
			return written, err
		}
		p, err := baseline.Write(cfg.BaselineDir(), man)
		if err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}
