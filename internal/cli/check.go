package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// CheckOptions is what `mcp-audit check` does; the GitHub Action fills the
// same struct from its inputs.
type CheckOptions struct {
	Config string
	// ConfigName is how the configuration is named in printed commands
	// (the repository-relative path in the Action); default Config.
	ConfigName  string
	Servers     []string // empty: all
	NewReleases bool     // audit every version newer than the baseline
	Force       bool     // audit even when the candidate is the baseline
	Format      string
	Out         string
	FailOn      string // overrides the configuration
	Runs        int
	Manifests   string // write candidate manifests here
	Network     string // overrides the configuration
}

func runCheck(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var o CheckOptions
	var common commonFlags
	var servers stringList
	common.register(fs)
	fs.StringVar(&o.Config, "config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "check only this server (repeatable)")
	fs.BoolVar(&o.NewReleases, "new-releases", false, "audit every npm version newer than the newest baseline")
	fs.BoolVar(&o.Force, "force", false, "audit even when the candidate version is the baseline")
	fs.StringVar(&o.Format, "format", report.FormatText, "report format: text, json or markdown")
	fs.StringVar(&o.Out, "o", "", "write the report here (default: stdout)")
	fs.StringVar(&o.FailOn, "fail-on", "", "override the configuration's fail_on")
	fs.IntVar(&o.Runs, "runs", 1, "audit each version N times and keep only behavior seen every time")
	fs.StringVar(&o.Manifests, "manifests", "", "also write each audited manifest under this directory")
	fs.StringVar(&o.Network, "network", "", "override the configuration's network mode")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.Servers = servers
	reports, err := Check(ctx, env, common, o)
	if err != nil {
		return err
	}
	return finishReports(env, o.Format, o.Out, reports)
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	return nil
}

// finishReports writes reports and maps them to the exit status: runtime
// failures first (the results are incomplete), then policy failures.
func finishReports(env *Env, format, out string, reports []report.DiffReport) error {
	var buf bytes.Buffer
	if err := report.WriteDiffs(&buf, format, reports); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if out == "" || out == "-" {
		env.Stdout.Write(buf.Bytes())
	} else if err := writeFileAtomic(out, buf.Bytes()); err != nil {
		return err
	}
	return reportsError(reports)
}

// reportsError is the outcome of a check: a runtime error when a server
// could not be audited, ErrFindings when one fails its policy.
func reportsError(reports []report.DiffReport) error {
	var failed, broken int
	for _, r := range reports {
		switch {
		case r.Error != "":
			broken++
		case r.Result.Verdict == "fail":
			failed++
		}
	}
	if broken > 0 {
		return fmt.Errorf("%w: %d server(s) could not be audited", audit.ErrRuntime, broken)
	}
	if failed > 0 {
		return ErrFindings
	}
	return nil
}

type checker struct {
	close  func() // closes the engine connection
	env    *Env
	cfg    *config.Config
	deps   audit.Deps
	opts   CheckOptions
	log    *slog.Logger
	common commonFlags
}

// Check audits the configured servers and compares each with its newest
// baseline.
func Check(ctx context.Context, env *Env, common commonFlags, o CheckOptions) ([]report.DiffReport, error) {
	c, err := newChecker(ctx, env, common, o)
	if err != nil {
		return nil, err
	}
	defer c.close()
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

func newChecker(ctx context.Context, env *Env, common commonFlags, o CheckOptions) (*checker, error) {
	cfg, err := config.Load(o.Config)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if o.FailOn != "" {
		if _, err := policy.ParseSeverity(o.FailOn); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	deps, closeEngine, err := common.deps(ctx, env)
	if err != nil {
		return nil, err
	}
	return &checker{env: env, cfg: cfg, opts: o, log: deps.Log, common: common, deps: deps, close: closeEngine}, nil
}

func (c *checker) selected(names []string) ([]*config.Server, error) {
	if len(names) == 0 {
		return c.cfg.Servers, nil
	}
	var out []*config.Server
	for _, n := range names {
		s := c.cfg.Server(n)
		if s == nil {
			return nil, fmt.Errorf("%w: no server %q in %s", ErrUsage, n, c.cfg.Path)
		}
		out = append(out, s)
	}
	return out, nil
}

func (c *checker) policy(s *config.Server) policy.Policy {
	return serverPolicy(c.cfg, s, c.opts.FailOn)
}

func serverPolicy(cfg *config.Config, s *config.Server, failOnFlag string) policy.Policy {
	return batch.ServerPolicy(cfg, s, failOnFlag)
}

func (c *checker) auditOptions(s *config.Server, tgt string) audit.Options {
	return serverAuditOptions(c.env, c.common, c.cfg, s, tgt, c.opts.Network)
}

// serverAuditOptions builds the audit of one version of a configured
// server with the command line's image, CA and network settings.
func serverAuditOptions(env *Env, common commonFlags, cfg *config.Config, s *config.Server, tgt, networkFlag string) audit.Options {
	return batch.ServerOptions(cfg, s, tgt, audit.Options{Network: networkFlag, Image: common.image, ImageFlavor: common.flavor,
		TrustFiles: trustFiles(env, common.caFiles)})
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// target is one version to audit.
type candidate struct {
	spec    string // what audit.Run gets
	version string // "" when only known after the audit (local targets)
}

// candidates decides which versions to audit: the pinned version, or the
// newest matching the range; with --new-releases every version newer than
// the baseline.
func (c *checker) candidates(ctx context.Context, s *config.Server, base string) ([]candidate, error) {
	if s.Spec.Kind != target.KindNPM {
		return []candidate{{spec: s.Spec.Path}}, nil
	}
	if s.Version != "" && !c.opts.NewReleases {
		return []candidate{{spec: "npm:" + s.Spec.Name + "@" + s.Version, version: s.Version}}, nil
	}
	reg := c.deps.Fetcher.Registry
	p, err := reg.Fetch(ctx, s.Spec.Name)
	if err != nil {
		return nil, err
	}
	if c.opts.NewReleases && base != "" {
		vs, err := p.Newer(base, s.Range, s.Prerelease)
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, v := range vs {
			out = append(out, candidate{spec: "npm:" + s.Spec.Name + "@" + v, version: v})
		}
		return out, nil
	}
	v, err := p.Resolve(firstNonEmpty(s.Version, s.Range), s.Prerelease)
	if err != nil {
		return nil, err
	}
	return []candidate{{spec: "npm:" + s.Spec.Name + "@" + v.Version, version: v.Version}}, nil
}

func (c *checker) accept(s *config.Server, version string) string {
	cmd := "mcp-audit baseline update"
	if name := firstNonEmpty(c.opts.ConfigName, c.opts.Config); name != config.DefaultFile {
		cmd += " --config " + name
	}
	cmd += " --server " + s.Name
	if version != "" {
		cmd += " --version " + version
	}
	return cmd
}

func (c *checker) checkServer(ctx context.Context, s *config.Server) []report.DiffReport {
	dir := c.cfg.BaselineDir()
	fail := func(err error) []report.DiffReport {
		return []report.DiffReport{{Server: s.Name, Error: sandbox.Sanitize(err.Error())}}
	}
	eco, name := "npm", s.Spec.Name
	if s.Spec.Kind != target.KindNPM {
		eco = "local"
	}
	base := ""
	if name != "" {
		var err error
		if base, err = baseline.Newest(dir, eco, name); err != nil {
			return fail(err)
		}
	}
	cands, err := c.candidates(ctx, s, base)
	if err != nil {
		return fail(err)
	}
	if len(cands) == 0 {
		c.log.Info("no new releases", "server", s.Name, "baseline", base)
		return nil
	}
	var out []report.DiffReport
	for _, cand := range cands {
		if cand.version != "" && cand.version == base && !c.opts.Force {
			man, err := baseline.Load(dir, eco, name, base)
			if err != nil {
				return fail(err)
			}
			r := diff.Compare(man, man, c.policy(s))
			out = append(out, report.DiffReport{Server: s.Name, Baseline: true, Result: r})
			continue
		}
		out = append(out, c.auditAndCompare(ctx, s, cand, dir))
	}
	return out
}

func (c *checker) auditAndCompare(ctx context.Context, s *config.Server, cand candidate, dir string) report.DiffReport {
	res, err := audit.RunStable(ctx, c.deps, c.auditOptions(s, cand.spec), c.opts.Runs)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: sandbox.Sanitize(err.Error())}
	}
	man := res.Manifest
	if c.opts.Manifests != "" {
		if p, err := baseline.Write(c.opts.Manifests, man); err != nil {
			c.log.Warn("writing manifest", "err", err)
		} else {
			c.log.Info("manifest written", "path", p)
		}
	}
	pol := c.policy(s)
	base, err := baseline.Newest(dir, man.Target.Ecosystem, man.Target.Name)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: err.Error()}
	}
	acceptCmd := c.accept(s, man.Target.Version)
	if base == "" {
		return report.DiffReport{Server: s.Name, Result: absolute(man, pol), Accept: acceptCmd}
	}
	old, err := baseline.Load(dir, man.Target.Ecosystem, man.Target.Name, base)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: err.Error()}
	}
	return report.DiffReport{Server: s.Name, Baseline: true, Result: diff.Compare(old, man, pol), Accept: acceptCmd}
}

// absolute judges a version with no baseline by its own findings.
func absolute(man *m.Manifest, pol policy.Policy) *diff.Result {
	empty := &m.Manifest{Target: m.Target{Ecosystem: man.Target.Ecosystem, Name: man.Target.Name}, Outcome: man.Outcome}
	r := diff.Compare(empty, man, pol)
	r.Changes = []diff.Change{}
	r.Findings = policy.Evaluate(man, pol)
	r.Verdict = "pass"
	if policy.Failed(r.Findings, pol.FailOn) {
		r.Verdict = "fail"
	}
	r.Counts = policy.Counts(r.Findings)
	return r
}

func runBaseline(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] != "update" {
		return fmt.Errorf("%w: usage: mcp-audit baseline update [--server NAME] [--version V] [--manifest FILE]", ErrUsage)
	}
	fs := flag.NewFlagSet("baseline update", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var common commonFlags
	var servers, manifests stringList
	common.register(fs)
	cfgPath := fs.String("config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "update only this server (repeatable)")
	version := fs.String("version", "", "the version to record (default: the candidate: pinned, or newest in range)")
	runs := fs.Int("runs", 1, "audit N times and keep only behavior seen every time")
	fs.Var(&manifests, "manifest", "record this already audited manifest instead of auditing (repeatable)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if len(manifests) > 0 {
		for _, f := range manifests {
			data, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrUsage, err)
			}
			man, err := m.Decode(data)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrUsage, f, err)
			}
			p, err := baseline.Write(cfg.BaselineDir(), man)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, rel(p))
		}
		return nil
	}
	c, err := newChecker(ctx, env, common, CheckOptions{Config: *cfgPath, Runs: *runs})
	if err != nil {
		return err
	}
	defer c.close()
	selected, err := c.selected(servers)
	if err != nil {
		return err
	}
	if *version != "" && len(selected) != 1 {
		return fmt.Errorf("%w: --version needs exactly one --server", ErrUsage)
	}
	for _, s := range selected {
		tgt := ""
		switch {
		case *version != "" && s.Spec.Kind == target.KindNPM:
			tgt = "npm:" + s.Spec.Name + "@" + *version
		default:
			cands, err := c.candidates(ctx, s, "")
			if err != nil {
				return fmt.Errorf("%w: %s: %v", audit.ErrRuntime, s.Name, err)
			}
			tgt = cands[0].spec
		}
		res, err := audit.RunStable(ctx, c.deps, c.auditOptions(s, tgt), *runs)
		if err != nil {
			return err
		}
		p, err := baseline.Write(cfg.BaselineDir(), res.Manifest)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, rel(p))
	}
	return nil
}

func rel(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func runDiff(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", report.FormatText, "text, json or markdown")
	failOn := fs.String("fail-on", policy.DefaultFailOn.String(), "exit 1 when a finding is at or above this severity")
	cfgPath := fs.String("config", "", "take allow-lists from this configuration…")
	server := fs.String("server", "", "…for this server")
	out := fs.String("o", "", "write the report here (default: stdout)")
	fs.Usage = func() {
		fmt.Fprint(env.Stderr, "Usage: mcp-audit diff [flags] OLD.json NEW.json\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: diff takes two manifests, OLD and NEW", ErrUsage)
	}
	sev, err := policy.ParseSeverity(*failOn)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	pol := policy.Policy{FailOn: sev}
	if *cfgPath != "" {
		cfg, err := config.Load(*cfgPath)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
		s := cfg.Server(*server)
		if s == nil {
			return fmt.Errorf("%w: --config needs --server naming one of its servers", ErrUsage)
		}
		pol.Allow = s.Allow
	}
	var mans [2]*m.Manifest
	for i, f := range pos {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
		if mans[i], err = m.Decode(data); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrUsage, f, err)
		}
	}
	r := diff.Compare(mans[0], mans[1], pol)
	return finishReports(env, *format, *out, []report.DiffReport{{Server: *server, Baseline: true, Result: r}})
}

func runDiscover(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("discover", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var common commonFlags
	var servers stringList
	common.register(fs)
	cfgPath := fs.String("config", config.DefaultFile, "configuration file")
	fs.Var(&servers, "server", "only this server (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	fetcher, err := common.fetcher(env)
	if err != nil {
		return err
	}
	c := &checker{env: env, cfg: cfg, opts: CheckOptions{NewReleases: true}, deps: audit.Deps{Fetcher: fetcher}, log: newLogger(env, common.verbose)}
	selected, err := c.selected(servers)
	if err != nil {
		return err
	}
	for _, s := range selected {
		if s.Spec.Kind != target.KindNPM {
			continue
		}
		base, err := baseline.Newest(cfg.BaselineDir(), "npm", s.Spec.Name)
		if err != nil {
			return err
		}
		cands, err := c.candidates(ctx, s, base)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", audit.ErrRuntime, s.Name, err)
		}
		for _, cand := range cands {
			if cand.version != base {
				fmt.Fprintf(env.Stdout, "%s\t%s\t%s\tbaseline %s\n", s.Name, s.Spec.Name, cand.version, firstNonEmpty(base, "none"))
			}
		}
	}
	return nil
}
