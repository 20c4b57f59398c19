package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
)

func runBaseline(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] != "update" {
		return fmt.Errorf("%w: usage: mcp-audit baseline update [--server NAME] [--version V] [--manifest FILE]", ErrUsage)
	}
	fs := flag.NewFlagSet("baseline update", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var o check.UpdateOptions
	var common commonFlags
	var servers, manifests stringList
	common.register(fs)
	cfgPath := fs.String("config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "update only this server (repeatable)")
	fs.StringVar(&o.Version, "version", "", "the version to record (default: the candidate: pinned, or newest in range)")
	fs.IntVar(&o.Runs, "runs", 1, "audit N times and keep only behavior seen every time")
	fs.Var(&manifests, "manifest", "record this already audited manifest instead of auditing (repeatable)")
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
		written, err = check.RecordManifests(cfg, manifests)
	} else {
		written, err = updateBaselines(ctx, env, common, cfg, o)
	}
	for _, p := range written {
		fmt.Fprintln(env.Stdout, rel(p))
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
	return check.UpdateBaselines(ctx, deps, cfg, o)
}
