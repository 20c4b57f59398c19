package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/scan"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runInit audits the clients' servers as scan does and writes an
// mcp-audit.yml pinning each to the version audited, with baselines for
// the versions that pass (docs/scan.md#init).
func runInit(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "init")
	var f scanFlags
	f.register(fs)
	fromClients := fs.Bool("from-clients", false, "read every client configuration file found on this machine (instead of FILE…)")
	cfgPath := fs.String("config", config.DefaultFile, "write the configuration here; its baselines go beside it")
	force := fs.Bool("force", false, "overwrite an existing configuration")
	format := registerFormat(fs, " (the scan's report)")
	out := fs.String("o", "", "write the report here (default: stdout)")
	files, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *fromClients && len(files) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: init takes --from-clients or the client files to read, not both", verdict.ErrUsage)
	}
	if !*fromClients && len(files) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: init needs --from-clients or the client files to read", verdict.ErrUsage)
	}
	if err := checkOutput("config", *cfgPath); err != nil {
		return err
	}
	if _, err := os.Stat(*cfgPath); err == nil && !*force {
		return fmt.Errorf("%w: %s exists; --force overwrites it", verdict.ErrUsage, *cfgPath)
	}
	o, done, err := f.prepare(env, files, *out, nil)
	if err != nil {
		return err
	}
	defer done()
	res, err := scanReport(ctx, env, &f, o, string(*format), *out)
	if err != nil {
		return err
	}
	in, err := scan.Init(res, *cfgPath, o.Env.Home)
	if err != nil {
		return err
	}
	printInit(env, in)
	outcome := scan.Outcome(res.Plan.Scan.Problems, res.Reports, o.AllowIncomplete || scan.ReportOnly(o.FailOn))
	if errors.Is(outcome, verdict.ErrFindings) && len(in.Refused) > 0 {
		// A refusal is the command's answer: exit 1 prints nothing.
		printErr(env.Stderr, fmt.Errorf("%d %s refused as a baseline", len(in.Refused), plural(len(in.Refused), "version", "versions")))
	}
	return outcome
}

// printInit says on stderr what init wrote and what it did not record.
func printInit(env *Env, in *scan.Initialized) {
	fmt.Fprintf(env.Stderr, "init: wrote %s\n", rel(in.Path))
	for _, p := range in.Baselines {
		fmt.Fprintf(env.Stderr, "init: baseline %s\n", rel(p))
	}
	for _, r := range in.Refused {
		fmt.Fprintf(env.Stderr, "init: refused: %s\n", textsafe.Line(r, 2000))
	}
	for _, r := range in.NotRecorded {
		fmt.Fprintf(env.Stderr, "init: no baseline: %s\n", textsafe.Line(r, 1000))
	}
}
