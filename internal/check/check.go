// Package check is the rug-pull check: it decides which releases of the
// configured servers to audit, audits them and compares each with its
// reviewed baseline. The CLI's check, baseline and discover commands and
// the GitHub Action are thin wiring over it.
package check

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/supply"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Options is what a check does. The CLI's flags and the GitHub Action's
// inputs fill the same struct, so both run one code path.
type Options struct {
	Config string
	// ConfigName is how the configuration is named in printed commands
	// (the repository-relative path in the Action); default Config.
	ConfigName  string
	Servers     []string // empty: all
	NewReleases bool     // audit every version newer than the baseline
	Force       bool     // audit even when the candidate is the baseline
	FailOn      string   // overrides the configuration
	// AllowIncomplete makes an incomplete audit a pass with a warning,
	// whatever the configuration says.
	AllowIncomplete bool
	Runs            int
	Manifests       string // write candidate manifests here
	// Audit audits one candidate (nil: audit.RunStable).
	Audit audit.Func
	// Base carries the caller's audit settings (image, CA files, and a
	// network mode overriding the configuration's); see audit.ForServer.
	Base audit.Options
	// MinReleaseAge overrides the configuration's min_release_age (nil:
	// keep it; DefaultMinReleaseAge when neither says); 0 judges a
	// candidate however young (releaseage.go).
	MinReleaseAge *time.Duration
	// Now is the clock release ages are measured by (nil: time.Now).
	Now func() time.Time
	// Resolve installs a registry version afresh and returns its tree
	// (nil: the fetcher's Refresh); Advisor asks for advisories (nil: the
	// fetcher, through the install gate); RegistryHTTP reaches the MCP
	// registry the configuration names (nil: a default client). See
	// supply.go.
	Resolve      func(ctx context.Context, spec string) (*deptree.Tree, error)
	Advisor      supply.Advisor
	RegistryHTTP *http.Client
}

// Validate reports option errors that need no engine, so they surface as
// usage errors before Docker is reached.
func (o Options) Validate() error {
	if o.FailOn != "" {
		if _, err := policy.ParseSeverity(o.FailOn); err != nil {
			return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
		}
	}
	return nil
}

// Registry is the part of the npm registry client the check needs.
type Registry interface {
	Fetch(ctx context.Context, name string) (*target.Packument, error)
}

// PyIndex is the part of the PyPI simple index client the check needs.
type PyIndex interface {
	PyPIFiles(ctx context.Context, name string) ([]target.PyFile, error)
}

type checker struct {
	cfg  *config.Config
	opts Options
	deps audit.Deps
	reg  Registry
	py   PyIndex
	log  *slog.Logger
	// tags lists image tags (nil: target.ImageTags).
	tags TagLister
	// audit audits a candidate (Options.Audit).
	audit audit.Func
}

func newChecker(cfg *config.Config, deps audit.Deps, o Options) *checker {
	c := &checker{cfg: cfg, opts: o, deps: deps, log: deps.Log, audit: o.Audit}
	if c.audit == nil {
		c.audit = audit.RunStable
	}
	if deps.Fetcher != nil {
		c.py = deps.Fetcher
		if deps.Fetcher.Registry != nil {
			c.reg = deps.Fetcher.Registry
		}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Run audits the selected servers of cfg and compares each with its newest
// baseline. A server that cannot be audited yields a report carrying the
// error; see Outcome.
func Run(ctx context.Context, deps audit.Deps, cfg *config.Config, o Options) ([]report.DiffReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c := newChecker(cfg, deps, o)
	servers, err := c.selected(o.Servers)
	if err != nil {
		return nil, err
	}
	var reports []report.DiffReport
	for _, s := range servers {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reports = append(reports, c.checkServer(ctx, s)...)
	}
	return reports, nil
}

// Outcome is the result of a check as an error: a runtime error when a
// server could not be audited (the results are incomplete, so this comes
// first), verdict.ErrFindings when one fails its policy, nil otherwise.
func Outcome(reports []report.DiffReport) error {
	var failed, broken, incomplete int
	for _, r := range reports {
		switch {
		case r.Error != "":
			broken++
		case r.Result.Verdict == m.VerdictFail:
			failed++
		case r.Result.Verdict == m.VerdictIncomplete && r.Result.FailOn <= policy.Critical:
			incomplete++
		}
	}
	if broken > 0 {
		return fmt.Errorf("%w: %d server(s) could not be audited", audit.ErrRuntime, broken)
	}
	if failed > 0 {
		return verdict.ErrFindings
	}
	if incomplete > 0 {
		return fmt.Errorf("%w: %d server(s)", verdict.ErrIncomplete, incomplete)
	}
	return nil
}

func (c *checker) selected(names []string) ([]*config.Server, error) {
	if len(names) == 0 {
		return c.cfg.Servers, nil
	}
	var out []*config.Server
	for _, n := range names {
		s := c.cfg.Server(n)
		if s == nil {
			return nil, fmt.Errorf("%w: no server %q in %s", verdict.ErrUsage, n, c.cfg.Path)
		}
		out = append(out, s)
	}
	return out, nil
}

func (c *checker) policy(s *config.Server) policy.Policy {
	pol := c.cfg.Policy(s, c.opts.FailOn)
	pol.AllowIncomplete = pol.AllowIncomplete || c.opts.AllowIncomplete
	return pol
}

func (c *checker) auditOptions(s *config.Server, tgt string) audit.Options {
	return audit.ForServer(c.cfg, s, tgt, c.opts.Base)
}

// accept is the command that records a version as the server's baseline,
// printed in the report so accepting a change is one copy and paste.
func (c *checker) accept(s *config.Server, version string) string {
	cmd := "mcp-audit baseline update"
	if name := cmp.Or(c.opts.ConfigName, c.opts.Config); name != config.DefaultFile {
		cmd += " --config " + name
	}
	cmd += " --server " + s.Name
	if version != "" {
		cmd += " --version " + version
	}
	return cmd
}
