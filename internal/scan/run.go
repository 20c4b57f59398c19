package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/remote"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Result is a finished scan.
type Result struct {
	Plan *Plan
	// Reports are one per server, in the plan's order.
	Reports []report.DiffReport
	// Audited are the sandboxed servers whose audit finished, by name.
	Audited map[string]Audited
}

// Audited is what the audit of one sandboxed server resolved.
type Audited struct {
	// Version is the version audited (an npm or PyPI version, an image
	// digest); "" for a local directory.
	Version string
	// Manifest is the manifest's file in the results directory.
	Manifest string
	Verdict  string
}

// Run audits the plan: the sandboxed servers through batch, jobs at a
// time, the remote ones (with o.Remote) surface only at the same time.
// deps is used only when the plan has servers to sandbox.
func Run(ctx context.Context, deps audit.Deps, p *Plan, o Options) (*Result, error) {
	res := &Result{Plan: p, Audited: map[string]Audited{}}
	remotes := map[string]*m.Manifest{}
	remoteErr := map[string]string{}
	var wg sync.WaitGroup
	if o.Remote {
		wg.Add(1)
		go func() {
			defer wg.Done()
			auditRemotes(ctx, p, o, remotes, remoteErr)
		}()
	}
	var records map[string]batch.Record
	var err error
	if p.Config != nil {
		records, err = auditSandboxed(ctx, deps, p, o)
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, s := range p.Scan.Servers {
		r := res.report(s, p, o, records, remotes[s.Name], remoteErr[s.Name])
		r.Notes = append(notes(p.Scan, s, o.Env.Home), r.Notes...)
		res.Reports = append(res.Reports, r)
	}
	return res, nil
}

// auditSandboxed audits the configuration's servers with batch into
// o.Out and returns their records by server.
func auditSandboxed(ctx context.Context, deps audit.Deps, p *Plan, o Options) (map[string]batch.Record, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", audit.ErrRuntime, err)
	}
	if err := fsutil.WriteFileAtomic(p.Config.Path, p.YAML); err != nil {
		return nil, fmt.Errorf("%w: %w", audit.ErrRuntime, err)
	}
	_, err := batch.Run(ctx, deps, batch.Options{List: p.Config, Out: o.Out, Jobs: o.Jobs, ServerTimeout: o.ServerTimeout,
		Runs: o.Runs, Progress: o.Progress, Audit: o.Audit, Base: o.Base})
	if err != nil {
		return nil, err
	}
	recs, err := batch.Records(o.Out)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the results: %w", audit.ErrRuntime, err)
	}
	out := map[string]batch.Record{}
	for _, r := range recs {
		out[r.Server] = r
	}
	return out, nil
}

// auditRemotes audits every contactable remote server, one at a time
// (they are few, and each is bounded in time and bytes).
func auditRemotes(ctx context.Context, p *Plan, o Options, mans map[string]*m.Manifest, errs map[string]string) {
	for _, s := range p.Scan.Servers {
		if s.Kind != clientconfig.KindRemote || s.URL == "" || ctx.Err() != nil {
			continue
		}
		name, version := clientInfo(o.Base)
		man, err := remote.Audit(ctx, remote.Options{URL: s.URL, Transport: s.Transport, Calls: o.RemoteCalls,
			ClientName: name, ClientVersion: version, AllowLoopback: o.RemoteLoopback})
		switch {
		case errors.Is(err, remote.ErrRefused):
			errs[s.Name] = err.Error() // "not contacted: why"
		case err != nil:
			errs[s.Name] = "not audited: " + err.Error()
		default:
			mans[s.Name] = man
			keepManifest(o.Out, man)
		}
		if o.Progress != nil {
			what := "surface only, " + outcomeOf(man, err)
			fmt.Fprintf(o.Progress, "[remote] %s %s\n", textsafe.Line(s.Name, 100), what)
		}
	}
}

func outcomeOf(man *m.Manifest, err error) string {
	if err != nil {
		return textsafe.OneLine(err.Error(), 200)
	}
	return man.Outcome.Status
}

// report is one server's report.
func (res *Result) report(s *clientconfig.Server, p *Plan, o Options, records map[string]batch.Record, man *m.Manifest, remoteErr string) report.DiffReport {
	r := report.DiffReport{Server: s.Name}
	switch s.Kind {
	case clientconfig.KindRemote:
		switch {
		case !o.Remote:
			r.Error = "not audited: a remote server at " + s.Host + " (--remote audits what it offers, surface only)"
		case s.URL == "":
			r.Error = "not contacted: " + s.Reason
		case remoteErr != "":
			r.Error = remoteErr
		default:
			r = judged(s.Name, man, defaultPolicy(o))
			r.SurfaceOnly = true
			r.Notes = append(r.Notes, surfacePin(man))
		}
		return r
	case clientconfig.KindUnrecognised:
		r.Error = "not audited: the command " + s.Command + " is not recognised: " + s.Reason
		return r
	}
	if why := p.NotWritten[s.Name]; why != "" {
		r.Error = "not audited: " + why
		return r
	}
	rec, ok := records[s.Name]
	switch {
	case !ok:
		r.Error = "not audited: no result"
	case rec.Status != batch.StatusDone:
		r.Error = "could not be audited: " + rec.Reason
	default:
		man, err := readManifest(filepath.Join(o.Out, filepath.FromSlash(rec.Manifest)))
		if err != nil {
			r.Error = "could not be audited: " + err.Error()
			break
		}
		cs := p.Config.Server(s.Name)
		pol := p.Config.Policy(cs, o.FailOn)
		pol.AllowIncomplete = pol.AllowIncomplete || o.AllowIncomplete
		r = judged(s.Name, man, pol)
		a := Audited{Manifest: filepath.Join(o.Out, filepath.FromSlash(rec.Manifest)), Verdict: r.Result.Verdict}
		if target.EcosystemNamed(man.Target.Ecosystem).Registry {
			a.Version = man.Target.Version
		}
		res.Audited[s.Name] = a
	}
	return r
}

// judged is one manifest's report under pol: its findings and the
// allow-list that would accept it, as audit and report give them.
func judged(name string, man *m.Manifest, pol policy.Policy) report.DiffReport {
	res := diff.Judge(man, pol)
	return report.DiffReport{Server: name, Result: res, SuggestedAllow: check.Suggestion(man, pol, res.Findings), New: man}
}

// defaultPolicy is the policy of a server that has no configuration.
func defaultPolicy(o Options) policy.Policy {
	pol := policy.Policy{FailOn: policy.DefaultFailOn, AllowIncomplete: o.AllowIncomplete}
	if sev, err := policy.ParseSeverity(o.FailOn); o.FailOn != "" && err == nil {
		pol.FailOn = sev
	}
	return pol
}

func readManifest(path string) (*m.Manifest, error) {
	data, err := fsutil.ReadFileBounded(path, 256<<20)
	if err != nil {
		return nil, err
	}
	man, err := m.Decode(data)
	if err != nil {
		return nil, errors.New("its manifest cannot be read: " + err.Error())
	}
	return man, nil
}

// clientInfo is the NAME/VERSION of --client-info ("", "": the default).
func clientInfo(o audit.Options) (string, string) {
	name, version, _ := strings.Cut(o.ClientInfo, "/")
	return name, version
}

// keepManifest writes a remote server's surface manifest beside the
// sandboxed ones (manifests/remote/HOST/VERSION.json), where a later
// scan's can be compared with it (mcp-audit diff). A server that gave no
// usable version has none kept; its report still pins its tools.
func keepManifest(out string, man *m.Manifest) {
	if out == "" || man.Target.Version == "" {
		return
	}
	if _, err := baseline.Write(filepath.Join(out, "manifests"), man); err != nil {
		man.Run.Notes = append(man.Run.Notes, "its manifest is not kept: "+textsafe.OneLine(err.Error(), 200))
	}
}

// surfacePin is one digest over a remote server's tools (each pinned by
// its own digest in the manifest), so two scans' surfaces compare at a
// glance.
func surfacePin(man *m.Manifest) string {
	digests := make([]string, 0, len(man.Tools))
	for _, t := range man.Tools {
		digests = append(digests, t.Name+"\x00"+t.Digest)
	}
	slices.Sort(digests)
	sum := sha256.Sum256([]byte(strings.Join(digests, "\n")))
	return fmt.Sprintf("surface pinned: %d %s, digest sha256:%s", len(man.Tools), plural(len(man.Tools), "tool", "tools"), hex.EncodeToString(sum[:8]))
}
