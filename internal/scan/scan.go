// Package scan audits the MCP servers people already run: clientconfig
// reads and maps their clients' configuration files, the servers that can
// be sandboxed become an mcp-audit.yml (the one init writes) that batch
// audits in parallel, remote servers are audited surface only when asked
// (internal/remote), and every server becomes one report.DiffReport that
// says where it is configured and what its configuration warns about.
// The CLI's scan and init commands are wiring over it.
//
// Nothing of a client file's values is used: a server's configured
// variables are planted as canaries by name (canary_env), headers and
// tokens are never sent, and arguments that looked like secrets are
// already redacted by clientconfig.
package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Options are what a scan reads and how it audits.
type Options struct {
	Env clientconfig.Env
	// Files are the configuration files named on the command line; none:
	// every documented location that exists (clientconfig.Discover).
	Files []string
	// Remote audits remote servers surface only; RemoteCalls are the
	// tools it may call (--remote-call).
	Remote      bool
	RemoteCalls []string
	// RemoteLoopback lets the surface audit reach a server on loopback.
	// For tests only (remote.Options.AllowLoopback): no flag sets it.
	RemoteLoopback bool
	// FailOn overrides the default threshold; AllowIncomplete makes an
	// incomplete or impossible audit a pass with a warning.
	FailOn          string
	AllowIncomplete bool
	// Out is the results directory batch writes (records, manifests,
	// RESULTS.md, the report) with the mcp-audit.yml audited.
	Out           string
	Jobs          int
	ServerTimeout time.Duration
	Runs          int
	// Progress gets a line per finished server.
	Progress io.Writer
	// Audit audits one sandboxed server (nil: audit.RunStable); Base
	// carries the command line's audit settings.
	Audit audit.Func
	Base  audit.Options
	// Exists asks a registry whether a package exists (the
	// unknown-package warning); nil: not asked.
	Exists clientconfig.PackageExists
}

// Validate reports option errors that need no engine.
func (o Options) Validate() error {
	if o.FailOn != "" {
		if _, err := policy.ParseSeverity(o.FailOn); err != nil {
			return fmt.Errorf("%w: --fail-on: %w", verdict.ErrUsage, err)
		}
	}
	if len(o.RemoteCalls) > 0 && !o.Remote {
		return fmt.Errorf("%w: --remote-call needs --remote", verdict.ErrUsage)
	}
	return nil
}

// Plan is what a scan found and will audit.
type Plan struct {
	Scan *clientconfig.Result
	// Config holds the servers that can be sandboxed, as the mcp-audit.yml
	// init would write without versions (nil when there are none); YAML
	// is its text.
	Config *config.Config
	YAML   []byte
	// NotWritten says why a server that is neither remote nor
	// unrecognised is not in Config.
	NotWritten map[string]string
}

// Read reads the client configuration files o names, or discovers them.
func Read(o Options) *clientconfig.Result {
	var locs []clientconfig.Location
	if len(o.Files) == 0 {
		locs = clientconfig.Discover(o.Env)
	}
	for _, f := range o.Files {
		abs, err := filepath.Abs(f)
		if err == nil {
			f = abs
		}
		locs = append(locs, clientconfig.ForFile(f))
	}
	return clientconfig.Scan(o.Env, locs)
}

// NewPlan reads the files, asks the registry about the packages (when
// o.Exists is set) and writes the servers that can be sandboxed as the
// configuration batch audits, at Out/mcp-audit.yml.
func NewPlan(ctx context.Context, o Options) (*Plan, error) {
	res := Read(o)
	if o.Exists != nil {
		res.Warnings = append(res.Warnings, clientconfig.CheckPackages(ctx, res.Servers, o.Exists)...)
	}
	p := &Plan{Scan: res, NotWritten: map[string]string{}}
	path := filepath.Join(o.Out, "mcp-audit.yml")
	var ok []*clientconfig.Server
	for _, s := range res.Servers {
		if s.Kind == clientconfig.KindRemote || s.Kind == clientconfig.KindUnrecognised {
			continue
		}
		// Each on its own first: one server the reader refuses must not
		// keep the others from being audited.
		if _, err := configOf(path, []*clientconfig.Server{s}, o.Env.Home); err != nil {
			p.NotWritten[s.Name] = err.Error()
			continue
		}
		ok = append(ok, s)
	}
	if len(ok) == 0 {
		return p, nil
	}
	data, err := clientconfig.Write(ok, clientconfig.WriteOptions{Home: o.Env.Home})
	if err != nil {
		return nil, fmt.Errorf("%w: writing the servers' configuration: %w", audit.ErrRuntime, err)
	}
	cfg, err := config.Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the servers' configuration: %w", audit.ErrRuntime, err)
	}
	p.Config, p.YAML = cfg, data
	return p, nil
}

// configOf is servers written and read back as a configuration.
func configOf(path string, servers []*clientconfig.Server, home string) (*config.Config, error) {
	data, err := clientconfig.Write(servers, clientconfig.WriteOptions{Home: home})
	if errors.Is(err, clientconfig.ErrNoServers) {
		return nil, errors.New(servers[0].Unwritable())
	}
	if err != nil {
		return nil, err
	}
	return config.Parse(path, data)
}

// Sandboxed is how many servers the plan audits in the sandbox.
func (p *Plan) Sandboxed() int {
	if p.Config == nil {
		return 0
	}
	return len(p.Config.Servers)
}

// Remotes is how many remote servers a scan with --remote contacts.
func (p *Plan) Remotes() int {
	n := 0
	for _, s := range p.Scan.Servers {
		if s.Kind == clientconfig.KindRemote && s.URL != "" {
			n++
		}
	}
	return n
}
