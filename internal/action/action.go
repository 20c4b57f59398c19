// Package action is the GitHub Action: it reads the inputs and the event,
// checks the servers the event concerns, and reports through the PR
// comment, the job summary, annotations, outputs, SARIF and a baseline
// pull request. The check itself is package check; the CLI wires the
// engine in through Env.Check.
package action

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Env is what the Action runs with.
type Env struct {
	// Stdout receives the workflow commands (outputs, annotations, masks).
	Stdout io.Writer
	Getenv func(string) string
	// Version is the tool's version, recorded in SARIF.
	Version string
	// Check runs the check the Action's inputs describe; the CLI fills it
	// with the same function its check command uses, so both share one
	// code path, and tests with a fake.
	Check func(ctx context.Context, cfg *config.Config, o check.Options) ([]report.DiffReport, error)
}

// run is one Action run: what it read from the inputs and the event.
type run struct {
	env   Env
	a     *githubactions.Action
	in    inputs
	ghctx *githubactions.GitHubContext
	ws    string // the workspace, where the repository is checked out
	cfg   *config.Config
	// note is appended to the report: a pull request's policy changes.
	note string
}

// Run is the Action's entrypoint. The token is masked before anything else
// is printed and never printed itself. Its error is the check's Outcome.
func Run(ctx context.Context, env Env) error {
	r, err := start(env)
	if err != nil {
		return err
	}
	opts := check.Options{Config: r.cfgPath(), ConfigName: r.in.Config, FailOn: r.in.FailOn, AllowIncomplete: r.in.AllowIncomplete,
		Servers: r.in.Servers, Base: audit.Options{Witness: true, Differential: true, Sandbox: audit.SandboxOptions{Network: r.in.Network}}}
	var pr pullRequest
	cfg := r.cfg
	var g *gate
	switch r.ghctx.EventName {
	case "pull_request":
		pr = pullRequestOf(r.ghctx.Event)
		var err error
		if g, err = newGate(r.ws, r.in.Config, pr.BaseSHA, r.cfg); err != nil {
			return err
		}
		defer g.close()
		baseWF, known := baseWorkflowInputs(r.ws, pr.BaseSHA, env.Getenv)
		g.changes = append(g.changes, guardInputs(g.base, &opts, r.in, baseWF, known)...)
		cfg, r.note = g.cfg, g.note()
		changed, why := changedServers(r.ws, r.in.Config, pr.BaseSHA, r.cfg)
		r.a.Infof("servers to check: %v (%s)", changed, why)
		if len(changed) == 0 && !g.loosened() {
			r.a.AddStepSummary("## mcp-audit\n\nThis pull request changes no MCP server.\n" + r.note)
			r.a.SetOutput("verdict", m.VerdictPass)
			r.a.SetOutput("findings", "0")
			return nil
		}
		// The servers input may add servers, never leave out a changed one.
		opts.Servers = unionNames(opts.Servers, changed)
	case "schedule", "workflow_dispatch":
		// Every new release is audited and its manifest kept, to be
		// proposed as a baseline.
		opts.NewReleases = true
		// Nobody waits for a scheduled run: observe idle longer, so the
		// server's fast clock covers hours.
		opts.Base.Timing.Dwell = audit.DefaultDwell
		dir, err := os.MkdirTemp("", "mcp-audit-manifests-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		opts.Manifests = dir
	}
	var reports []report.DiffReport
	if g == nil || len(opts.Servers) > 0 {
		var err error
		if reports, err = env.Check(ctx, cfg, opts); err != nil {
			return err
		}
	}
	if g != nil && pr.BaseSHA != "" {
		reports = flagAcceptedRisk(reports, acceptedRiskBaselines(r.ws, pr.BaseSHA, r.cfg))
		reports = g.flag(reports, r.in.Config)
	}
	if err := r.finish(ctx, reports, pr, opts.Manifests); err != nil {
		return err
	}
	return check.Outcome(reports)
}

// start reads the inputs, masks the token, reads the GitHub context and
// loads the configuration, annotating it when it is invalid.
func start(env Env) (*run, error) {
	a := githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv))
	in, err := readInputs(a)
	if err != nil {
		return nil, err
	}
	if in.Token != "" {
		a.AddMask(in.Token)
	}
	ghctx, err := a.Context()
	if err != nil {
		return nil, fmt.Errorf("%w: reading the GitHub context: %v", verdict.ErrUsage, err)
	}
	r := &run{env: env, a: a, in: in, ghctx: ghctx, ws: ghctx.Workspace}
	if r.ws == "" {
		r.ws = "."
	}
	// One cleaned path for the file on disk and in git (configpath.go).
	if r.in.Config, err = workspaceRel(r.ws, in.Config); err != nil {
		a.Errorf("%s", textsafe.Line(err.Error(), 4000))
		return nil, err
	}
	if r.cfg, err = config.Load(r.cfgPath()); err != nil {
		a.WithFieldsMap(map[string]string{"file": r.in.Config}).Errorf("%s", textsafe.Line(err.Error(), 4000))
		return nil, fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	return r, nil
}

// cfgPath is the configuration file; a relative input is relative to the
// workspace.
func (r *run) cfgPath() string {
	if filepath.IsAbs(r.in.Config) {
		return r.in.Config
	}
	return filepath.Join(r.ws, r.in.Config)
}

// finish publishes the reports, then comments on the pull request or
// proposes baselines. GitHub API failures are warnings: the verdict stands
// without them.
func (r *run) finish(ctx context.Context, reports []report.DiffReport, pr pullRequest, manifests string) error {
	var md bytes.Buffer
	if err := report.WriteDiffs(&md, report.FormatMarkdown, reports); err != nil {
		return err
	}
	md.WriteString(r.note)
	md.WriteString(r.artifactLink())
	if err := r.publish(reports, md.Bytes()); err != nil {
		return err
	}
	if r.ghctx.EventName == "pull_request" && r.in.Comment && pr.Number > 0 {
		if err := r.comment(ctx, pr.Number, md.String()); err != nil {
			r.a.Warningf("posting the PR comment: %s", textsafe.Line(err.Error(), 4000))
		}
	}
	if manifests != "" && r.in.UpdateBaselines {
		if err := r.proposeBaselines(ctx, manifests, md.String()); err != nil {
			r.a.Warningf("proposing new baselines: %s", textsafe.Line(err.Error(), 4000))
		}
	}
	return nil
}
