package cli

import (
	"context"

	"github.com/mcp-audit/mcp-audit/internal/action"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// runAction is the GitHub Action's entrypoint (`mcp-audit action`, see
// action.yml). The Action has no flags: its inputs fill check.Options, and
// the check runs through runChecks like the check command's.
func runAction(ctx context.Context, env *Env, args []string) error {
	if err := wantsHelp(env, "action", args); err != nil {
		return err
	}
	// The Action has no flags: the witness run is on, as in check.
	common := commonFlags{image: sandbox.DefaultImage, flavor: sandbox.FlavorAuto, witness: true}
	return action.Run(ctx, action.Env{
		Stdout:  env.Stdout,
		Getenv:  env.Getenv,
		Version: version(),
		Check: func(ctx context.Context, cfg *config.Config, o check.Options) ([]report.DiffReport, error) {
			return runChecks(ctx, env, common, cfg, o)
		},
	})
}
