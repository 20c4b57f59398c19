package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
)

func runDiscover(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "discover")
	var common registryFlags
	var servers stringList
	common.register(fs)
	cfgPath := fs.String("config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "only this server (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	fetcher, err := common.fetcher(env)
	if err != nil {
		return err
	}
	releases, err := check.Discover(ctx, fetcher.Registry, fetcher, cfg, servers)
	for _, r := range releases {
		base := r.Baseline
		if base == "" {
			base = "none"
		}
		fmt.Fprintf(env.Stdout, "%s\t%s\t%s\tbaseline %s\n", r.Server, r.Package, r.Version, base)
	}
	return err
}
