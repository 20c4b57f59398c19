package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sink"
)

// runSink is the hidden `mcp-audit sink` command: the network sink, run by
// the sandbox inside the sink container. It is not meant for people.
func runSink(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("sink", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	cfgFile := fs.String("config", "", "sink configuration (JSON)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	b, err := os.ReadFile(*cfgFile)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	var cfg sink.Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%w: sink config: %v", ErrUsage, err)
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

// parseResponses reads --http-response HOST=STATUS[:FILE] flags.
func parseResponses(specs []string) (map[string]sink.Response, error) {
	out := map[string]sink.Response{}
	for _, s := range specs {
		host, rest, ok := strings.Cut(s, "=")
		if !ok || host == "" {
			return nil, fmt.Errorf("%w: --http-response wants HOST=STATUS[:BODYFILE], got %q", ErrUsage, s)
		}
		status, file, _ := strings.Cut(rest, ":")
		code, err := strconv.Atoi(status)
		if err != nil || code < 100 || code > 599 {
			return nil, fmt.Errorf("%w: --http-response: bad status %q", ErrUsage, status)
		}
		r := sink.Response{Status: code, ContentType: "application/json", Body: "{}"}
		if file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("%w: --http-response: %v", ErrUsage, err)
			}
			r.Body = string(b)
			if !json.Valid(b) {
				r.ContentType = "text/plain"
			}
		}
		out[strings.ToLower(host)] = r
	}
	return out, nil
}
