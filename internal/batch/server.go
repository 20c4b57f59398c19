package batch

import (
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
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// ServerOptions builds the audit of one version of a configured server.
// base carries the command line's settings (image, CA files); its Network,
// when set, overrides the server's mode, which overrides the file's.
func ServerOptions(cfg *config.Config, s *config.Server, tgt string, base audit.Options) audit.Options {
	o := base
	o.Target, o.Bin, o.Args, o.Env, o.CanaryEnv = tgt, s.Bin, s.Args, s.EnvList(), s.CanaryEnv
	o.Calls, o.Tools, o.ToolArgs = s.Calls, s.Tools, s.ToolArgsJSON
	o.Transport, o.HTTPPort, o.HTTPPath = s.Transport, s.HTTPPort, s.HTTPPath
	for _, n := range []string{s.Network, cfg.Network} {
		if o.Network == "" {
			o.Network = n
		}
	}
	o.IdleQuiet, o.IdleMin, o.IdleMax = time.Duration(cfg.Idle.Quiet), time.Duration(cfg.Idle.Min), time.Duration(cfg.Idle.Max)
	if cfg.Idle.Dwell > 0 {
		o.Dwell = time.Duration(cfg.Idle.Dwell)
	}
	o.Deadline = time.Duration(s.Timeout)
	return o
}

// ServerPolicy is a configured server's policy: the file's fail_on, the
// server's, then the flag's, and the server's allow-list.
func ServerPolicy(cfg *config.Config, s *config.Server, failOnFlag string) policy.Policy {
	failOn := policy.DefaultFailOn
	for _, v := range []string{cfg.FailOn, s.FailOn, failOnFlag} {
		if v != "" {
			failOn, _ = policy.ParseSeverity(v)
		}
	}
	return policy.Policy{Allow: s.Allow, FailOn: failOn}
}

// auditOne audits a server and writes its manifest.
func auditOne(ctx context.Context, d audit.Deps, o Options, s *config.Server) Record {
	rec := Record{Server: s.Name, Target: s.Target}
	fail := func(err error) Record {
		rec.Status, rec.Reason = StatusFailed, textsafe.OneLine(err.Error(), 300)
		return rec
	}
	tgt := s.Spec.Path
	if s.Spec.Kind == target.KindNPM {
		rng := s.Version
		if rng == "" {
			rng = s.Range
		}
		v, err := d.Fetcher.ResolveNPM(ctx, target.Spec{Kind: target.KindNPM, Name: s.Spec.Name, Range: rng})
		if err != nil {
			return fail(err)
		}
		tgt = "npm:" + s.Spec.Name + "@" + v.Version
		rec.Target = tgt
	}
	if s.Spec.Kind == target.KindPyPI {
		tgt = s.Spec.Raw // resolved against the index by the audit itself
		rec.Target = tgt
	}
	res, err := auditServer(ctx, d, o, s, tgt)
	if err != nil && (res == nil || res.Manifest == nil) {
		return fail(err)
	}
	man := res.Manifest
	if s.Spec.Kind == target.KindPyPI && man.Target.Version != "" {
		rec.Target = "pypi:" + s.Spec.Name + "@==" + man.Target.Version // what was audited
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
	pol := ServerPolicy(o.List, s, "")
	fs := policy.Evaluate(man, pol)
	rec.Status, rec.Outcome = StatusDone, man.Outcome.Status
	rec.Ecosystem, rec.Name, rec.Version = man.Target.Ecosystem, man.Target.Name, man.Target.Version
	rec.Manifest, rec.Digest = filepath.ToSlash(rel), "sha256:"+hex.EncodeToString(sum[:])
	rec.Counts, rec.Findings = policy.Counts(fs), fs
	rec.Verdict = m.VerdictPass
	if policy.Failed(fs, pol.FailOn) {
		rec.Verdict = m.VerdictFail
	}
	rec.Reason = outcomeReason(man)
	return rec
}

// auditServer runs the (possibly repeated) audit of one resolved target.
func auditServer(ctx context.Context, d audit.Deps, o Options, s *config.Server, tgt string) (*audit.Result, error) {
	opts := ServerOptions(o.List, s, tgt, o.Base)
	if opts.Deadline == 0 {
		opts.Deadline = o.ServerTimeout
	}
	if opts.Deadline > 0 {
		// The deadline bounds the sandboxed run; this also bounds the
		// host-side preparation (download, install, image layer).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(max(1, o.Runs))*opts.Deadline+2*time.Minute)
		defer cancel()
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
