package batch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// auditOne audits a server and writes its manifest.
func auditOne(ctx context.Context, d audit.Deps, o Options, s *config.Server) Record {
	rec := Record{Server: s.Name, Target: s.Target}
	fail := func(err error) Record {
		rec.Status, rec.Reason = StatusFailed, textsafe.OneLine(err.Error(), 300)
		return rec
	}
	tgt, eco := s.Spec.Path, s.Spec.Ecosystem()
	switch {
	case eco.VersionKeys && s.Version != "":
		tgt = eco.Pin(s.Spec.Name, s.Version) // pinned: nothing to resolve
		rec.Target = tgt
	case eco.VersionKeys:
		// The configuration's version or range, resolved here so the
		// record names the version even when its audit fails.
		v, err := d.Fetcher.ResolveNPM(ctx, target.Spec{Kind: s.Spec.Kind, Name: s.Spec.Name, Range: cmp.Or(s.Version, s.Range)})
		if err != nil {
			return fail(err)
		}
		tgt = eco.Pin(s.Spec.Name, v.Version)
		rec.Target = tgt
	case eco.Registry && !eco.AsShipped:
		tgt = s.Spec.Raw // resolved against the index by the audit itself
		rec.Target = tgt
	}
	res, err := auditServer(ctx, d, o, s, tgt)
	if err != nil && (res == nil || res.Manifest == nil) {
		return fail(err)
	}
	man := res.Manifest
	if eco.Registry && !eco.AsShipped && !eco.VersionKeys && man.Target.Version != "" {
		rec.Target = eco.Pin(s.Spec.Name, man.Target.Version) // what was audited
	}
	path, err := baseline.Write(filepath.Join(o.Out, "manifests"), man)
	if err != nil {
		return fail(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	rel, _ := filepath.Rel(o.Out, path)
	sum := sha256.Sum256(data)
	pol := o.List.Policy(s, "")
	fs := policy.Evaluate(man, pol)
	rec.Status, rec.Outcome = StatusDone, man.Outcome.Status
	rec.Ecosystem, rec.Name, rec.Version = man.Target.Ecosystem, man.Target.Name, man.Target.Version
	rec.Manifest, rec.Digest = filepath.ToSlash(rel), "sha256:"+hex.EncodeToString(sum[:])
	rec.Counts, rec.Findings = policy.Counts(fs), fs
	rec.Incomplete = coverage.Incomplete(man)
	rec.Verdict = policy.Verdict(fs, pol, rec.Incomplete)
	cov := man.Coverage
	if cov == nil {
		cov = coverage.Compute(man, "")
	}
	rec.Coverage = coverage.Summary(cov)
	rec.Reason = outcomeReason(man)
	return rec
}

// auditServer runs the (possibly repeated) audit of one resolved target.
func auditServer(ctx context.Context, d audit.Deps, o Options, s *config.Server, tgt string) (*audit.Result, error) {
	opts := audit.ForServer(o.List, s, tgt, o.Base)
	if opts.Timing.Deadline == 0 {
		opts.Timing.Deadline = o.ServerTimeout
	}
	if opts.Timing.Deadline > 0 {
		// The deadline bounds the sandboxed run; this also bounds the
		// host-side preparation (download, install, image layer).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(max(1, o.Runs))*opts.Timing.Deadline+2*time.Minute)
		defer cancel()
	}
	if o.Audit != nil {
		return o.Audit(ctx, d, opts, o.Runs)
	}
	return audit.RunStable(ctx, d, opts, o.Runs)
}

// outcomeReason explains an outcome other than ok in one line: the
// manifest's reason, the exit code and the telling line of stderr.
func outcomeReason(man *m.Manifest) string {
	if man.Outcome.Status == m.StatusOK {
		return ""
	}
	reason := man.Outcome.Reason
	if man.Outcome.ExitCode != nil {
		reason += fmt.Sprintf(" (exit code %d)", *man.Outcome.ExitCode)
	}
	// A server mcp-audit killed (deadline, memory) has its reason already;
	// whatever it managed to print while dying depends on timing.
	if why := ReasonLine(man.Run.StderrTail); why != "" && man.Outcome.Status != m.StatusKilled {
		reason += ": " + textsafe.OneLine(why, 200)
	}
	return reason
}

var (
	// Lines of a stderr tail that say nothing about why: stack frames,
	// the runtime's version banner, caret markers, list and object syntax.
	reNoise = regexp.MustCompile(`^(at |Node\.js v\d|\^+$|- |Require stack:|[\[\]{}(),]+;?$|'[^']*',?$|"[^"]*",?$|\w+: \[$)`)
	reWhy   = regexp.MustCompile(`(?i)\b(error|exception|fatal|cannot|can't|could not|failed|not found|missing|required|denied|invalid|unable|refused|no such)\b`)
)

// ReasonLine picks the line of a server's stderr that best says why it
// stopped: the last one naming an error, else the last meaningful one.
func ReasonLine(stderr string) string {
	lines := strings.Split(stderr, "\n")
	last := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || reNoise.MatchString(l) {
			continue
		}
		if reWhy.MatchString(l) {
			return l
		}
		if last == "" {
			last = l
		}
	}
	return last
}
