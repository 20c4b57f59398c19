package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runSink is the hidden `mcp-audit sink` command: the network sink, run by
// the sandbox inside the sink container. It is not meant for people.
func runSink(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "sink")
	cfgFile := fs.String("config", "", "sink configuration (JSON)")
	probe := fs.Bool("probe", false, "probe the server's listening sockets and print what answered (run by the sandbox after the calls)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	if *probe {
		return sink.ProbeListeners(ctx, env.Stdout, sink.ProbeLimits{})
	}
	b, err := os.ReadFile(*cfgFile)
	if err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	var cfg sinklog.Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%w: sink config: %v", verdict.ErrUsage, err)
	}
	if cfg.Mode == "open" && cfg.Upstream == "" {
		cfg.Upstream = upstreamResolver()
	}
	err = sink.Run(ctx, cfg, env.Stdout)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// upstreamResolver is the first nameserver of the sink container's own
// resolv.conf (the engine's), for open mode.
func upstreamResolver() string {
	b, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			if strings.Contains(f[1], ":") {
				return "[" + f[1] + "]:53"
			}
			return f[1] + ":53"
		}
	}
	return ""
}
