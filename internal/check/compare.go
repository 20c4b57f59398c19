package check

import (
	"context"
	"fmt"

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
	cands = c.withRecheck(s, cands, base)
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
			// No new release; the version's tree may still resolve anew
			// (supply.go).
			changed, note := c.newResolution(ctx, s, cand, man, dir)
			switch {
			case changed != nil:
				out = append(out, *changed)
				continue
			case cand.recheck:
				// Only the tree was checked (--new-releases): unchanged, it
				// is no candidate.
				if note != "" {
					c.log.Warn(note, "server", s.Name)
				}
				continue
			}
			r := report.DiffReport{Server: s.Name, Baseline: true, Result: diff.Compare(man, man, c.policy(s))}
			if note != "" {
				r.Notes = append(r.Notes, note)
			}
			out = append(out, r)
			continue
		}
		if r := c.tooNew(s, cand, base, "", cand.published); r != nil {
			out = append(out, *r)
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
	supplyNotes := c.registryEntry(ctx, s, man)
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
			SuggestedAllow: Suggestion(man, pol, fs), New: man, Notes: supplyNotes}
	}
	old, err := baseline.Load(dir, man.Target.Ecosystem, man.Target.Name, base)
	if err != nil {
		return report.DiffReport{Server: s.Name, Error: err.Error()}
	}
	old, notes := c.sameMethod(ctx, s, old)
	notes = append(append(notes, supplyNotes...), c.compareAdvisories(ctx, old, man)...)
	return report.DiffReport{Server: s.Name, Baseline: true, Result: diff.Compare(old, man, pol), Accept: acceptCmd, NotAcceptable: notAcceptable,
		SuggestedAllow: Suggestion(man, pol, fs), Old: old, New: man, Notes: notes}
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

// sameMethod makes the baseline comparable with a candidate audited
// under this method (manifest.MethodVersion): a baseline recorded under
// another one would show this method's new calls, runs and eras as a rug
// pull on every upgrade. The baseline's version is audited again under
// the current method and that is compared; the recorded baseline still
// carries any accepted risk. A local target has no old version to audit
// again: it is compared as recorded, and the note says so.
func (c *checker) sameMethod(ctx context.Context, s *config.Server, old *m.Manifest) (*m.Manifest, []string) {
	if old.Method == m.MethodVersion {
		return old, nil
	}
	was := max(old.Method, 1)
	eco := s.Spec.Ecosystem()
	if !eco.Registry {
		return old, []string{fmt.Sprintf("the baseline was recorded under audit method %d (this mcp-audit audits under %d) and cannot be audited again (a local target): behaviour the newer method observes may show as new", was, m.MethodVersion)}
	}
	res, err := c.audit(ctx, c.deps, c.auditOptions(s, eco.Pin(s.Spec.Name, old.Target.Version)), c.opts.Runs)
	if err != nil || res == nil || res.Manifest == nil {
		return old, []string{fmt.Sprintf("the baseline was recorded under audit method %d (this mcp-audit audits under %d); auditing its version %s again failed, so it is compared as recorded: %v", was, m.MethodVersion, old.Target.Version, err)}
	}
	again := res.Manifest
	again.AcceptedRisk = old.AcceptedRisk
	return again, []string{fmt.Sprintf("the baseline %s was recorded under audit method %d; it was audited again under method %d and that is what the candidate is compared with", old.Target.Version, was, m.MethodVersion)}
}
