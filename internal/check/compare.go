package check

import (
	"context"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// checkServer checks every candidate version of one server. A candidate
// that is the baseline itself is compared with itself (nothing changed)
// instead of audited again, unless Force is set.
func (c *checker) checkServer(ctx context.Context, s *config.Server) []report.DiffReport {
	dir := c.cfg.BaselineDir()
	fail := func(err error) []report.DiffReport {
		return []report.DiffReport{{Server: s.Name, Error: textsafe.Clean(err.Error())}}
	}
	eco, name := baselineKey(s)
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
	res, err := c.audit(ctx, c.deps, c.auditOptions(s, cand.spec), c.opts.Runs)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: textsafe.Clean(err.Error())}
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
	fs := policy.Evaluate(man, pol)
	acceptCmd, notAcceptable := c.accept(s, man.Target.Version), NotAcceptable(policy.HarmfulOnes(fs))
	if notAcceptable != "" {
		acceptCmd = ""
	}
	if base == "" {
		return report.DiffReport{Server: s.Name, Result: diff.Judge(man, pol), Accept: acceptCmd, NotAcceptable: notAcceptable,
			SuggestedAllow: Suggestion(man, pol, fs), New: man}
	}
	old, err := baseline.Load(dir, man.Target.Ecosystem, man.Target.Name, base)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: err.Error()}
	}
	return report.DiffReport{Server: s.Name, Baseline: true, Result: diff.Compare(old, man, pol), Accept: acceptCmd, NotAcceptable: notAcceptable,
		SuggestedAllow: Suggestion(man, pol, fs), Old: old, New: man}
}

// Suggestion is the allow-list a server without one could adopt (from
// its findings fs under pol), nil when it has one or nothing would go in
// it.
func Suggestion(man *m.Manifest, pol policy.Policy, fs []policy.Finding) *policy.Allow {
	if !pol.Allow.Empty() {
		return nil
	}
	a := policy.SuggestAllow(man, fs)
	if a.Empty() {
		return nil
	}
	return &a
}

// baselineKey is where a server's baselines live: its ecosystem and the
// name the manifest records (PEP 503's normalized name for pypi).
func baselineKey(s *config.Server) (eco, name string) { return s.Spec.BaselineKey() }
