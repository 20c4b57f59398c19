package cli

import (
	"context"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/export"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func runExport(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "export")
	format := fs.String("format", "toolhive", "toolhive (permission profile JSON) or docker (catalog allowHosts YAML)")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: usage: mcp-audit export [--format toolhive|docker] MANIFEST", verdict.ErrUsage)
	}
	man, err := readManifest(pos[0])
	if err != nil {
		return err
	}
	switch *format {
	case "toolhive":
		b, err := export.ToolHive(man)
		if err != nil {
			return err
		}
		env.Stdout.Write(b)
	case "docker":
		env.Stdout.Write(export.DockerAllowHosts(man))
	default:
		return fmt.Errorf("%w: unknown format %q", verdict.ErrUsage, *format)
	}
	return nil
}
