package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runCheck(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "check")
	var o check.Options
	var common commonFlags
	var servers stringList
	common.register(fs)
	fs.StringVar(&o.Config, "config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "check only this server (repeatable)")
	fs.BoolVar(&o.NewReleases, "new-releases", false, "audit every npm, PyPI or image version newer than the newest baseline")
	fs.BoolVar(&o.Force, "force", false, "audit even when the candidate version is the baseline")
	format := registerFormat(fs, " (html: the side-by-side rug-pull view; sarif: results on each server's version line in --config)")
	out := fs.String("o", "", "write the report here (default: stdout)")
	fs.StringVar(&o.FailOn, "fail-on", "", "override the configuration's fail_on")
	fs.BoolVar(&o.AllowIncomplete, "allow-incomplete", false, "an incomplete audit passes with a warning instead of exiting 4 (the configuration's allow_incomplete, for every server)")
	fs.IntVar(&o.Runs, "runs", 1, "audit each version N times and keep only behavior seen every time")
	fs.StringVar(&o.Manifests, "manifests", "", "also write each audited manifest under this directory")
	fs.StringVar(&o.Base.Sandbox.Network, "network", "", "override the configuration's network mode")
	fs.Func("min-release-age", "judge no candidate published less than this long ago, e.g. 48h (the configuration's min_release_age; default 48h; 0 judges it now)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration like 48h or 0", v)
		}
		o.MinReleaseAge = &d
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkOutput("o", *out); err != nil {
		return err
	}
	if o.Runs < 1 {
		return fmt.Errorf("%w: --runs must be at least 1", verdict.ErrUsage)
	}
	if err := common.check(); err != nil {
		return err
	}
	o.Servers = servers
	cfg, err := loadConfig(o.Config)
	if err != nil {
		return err
	}
	reports, err := runChecks(ctx, env, common, cfg, o)
	if err != nil {
		return err
	}
	return finishReports(env, format, *out, cfg, reports)
}

// runChecks is the one path from options to a check, for the check command
// and the Action: the options are validated before Docker is reached, so
// their mistakes are usage errors even without an engine.
func runChecks(ctx context.Context, env *Env, common commonFlags, cfg *config.Config, o check.Options) ([]report.DiffReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkNetwork(o.Base.Sandbox.Network); err != nil {
		return nil, err
	}
	o.Base = withCommon(env, common, o.Base)
	deps, closeEngine, err := common.deps(ctx, env)
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	pr := newProgress(env, common.quiet)
	defer pr.done()
	o.Base.Progress = pr.hook()
	return check.Run(ctx, deps, cfg, o)
}

// withCommon fills a check's base audit options from the common flags,
// keeping what the caller decided: its network mode, and the witness run
// and the longer dwell the Action's scheduled runs ask for.
func withCommon(env *Env, common commonFlags, o audit.Options) audit.Options {
	b := common.base(env, o.Sandbox.Network)
	b.Witness = b.Witness || o.Witness
	b.Differential = b.Differential || o.Differential
	b.Timing.Dwell = max(b.Timing.Dwell, o.Timing.Dwell)
	return b
}
