package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runBaseline(ctx context.Context, env *Env, args []string) error {
	if err := wantsHelp(env, "baseline update", args); err != nil {
		return err
	}
	if len(args) == 0 || args[0] != "update" {
		return fmt.Errorf("%w: usage: mcp-audit baseline update [--server NAME] [--version V] [--manifest FILE] [--accept-risk REASON]", verdict.ErrUsage)
	}
	fs := newFlagSet(env, "baseline update")
	var o check.UpdateOptions
	var common commonFlags
	var servers, manifests stringList
	common.register(fs)
	cfgPath := fs.String("config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "update only this server (repeatable)")
	fs.StringVar(&o.Version, "version", "", "the version to record (default: the candidate: pinned, or newest in range)")
	fs.IntVar(&o.Runs, "runs", 1, "audit N times and keep only behavior seen every time")
	fs.Var(&manifests, "manifest", "record this already audited manifest instead of auditing (repeatable)")
	fs.StringVar(&o.AcceptRisk, "accept-risk", "", "record harmful findings (canary, persistence, credential read, text aimed at the model) as an accepted risk with this reason; checks still fail on them")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	o.Servers = servers
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	var written []string
	if len(manifests) > 0 {
		written, err = check.RecordManifests(cfg, manifests, o.AcceptRisk)
	} else {
		written, err = updateBaselines(ctx, env, common, cfg, o)
	}
	for _, p := range written {
		fmt.Fprintln(env.Stdout, rel(p))
	}
	if errors.Is(err, verdict.ErrFindings) || errors.Is(err, verdict.ErrIncomplete) {
		// A refusal is the command's answer, not a report: say why here
		// (exit codes print nothing for findings or an incomplete verdict).
		printErr(env.Stderr, err)
	}
	return err
}

func updateBaselines(ctx context.Context, env *Env, common commonFlags, cfg *config.Config, o check.UpdateOptions) ([]string, error) {
	o.Base = common.base(env, "")
	deps, closeEngine, err := common.deps(ctx, env)
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	pr := newProgress(env, common.quiet)
	defer pr.done()
	o.Base.Progress = pr.hook()
	return check.UpdateBaselines(ctx, deps, cfg, o)
}
