// Package batch audits many servers in parallel and publishes the results:
// manifests at stable per-version paths, RESULTS.md, a self-contained HTML
// report, the index.json feed and enforcement allow-lists.
//
// A batch is resumable: each finished server leaves a record written
// atomically, so a crash or Ctrl-C loses nothing already done and a rerun
// skips it. Lists can be split into shards (K/N) that separate jobs run and
// Merge combines.
package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// Record statuses.
const (
	StatusDone   = "done"   // audited; the manifest says how the server ran
	StatusFailed = "failed" // could not be audited (install failed, …)
)

// Record is what the batch knows about one server, written to
// records/<server>.json when it finishes.
type Record struct {
	Server    string `json:"server"`
	Target    string `json:"target"`
	Ecosystem string `json:"ecosystem,omitempty"`
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	Status    string `json:"status"`
	// Outcome is the manifest's outcome status (ok, crashed, …).
	Outcome string `json:"outcome,omitempty"`
	// Reason explains a failure or an outcome other than ok.
	Reason   string         `json:"reason,omitempty"`
	Manifest string         `json:"manifest,omitempty"` // path relative to the results directory
	Digest   string         `json:"digest,omitempty"`   // sha256 of the manifest file
	Verdict  string         `json:"verdict,omitempty"`  // pass or fail under the default policy
	Counts   map[string]int `json:"counts,omitempty"`
	// Findings under the list's policy (its fail_on and allow-lists), so
	// a merge needs only the records and manifests.
	Findings []policy.Finding `json:"findings,omitempty"`
	Seconds  float64          `json:"seconds,omitempty"`
	// AuditedAt is when the audit finished (RFC 3339, UTC).
	AuditedAt string `json:"audited_at,omitempty"`
}

// Options configure a batch.
type Options struct {
	List *config.Config
	Out  string
	Jobs int
	// Shard selects part of the list: servers sorted by name, the i-th
	// belongs to shard i mod N + 1. Zero N means all.
	ShardK, ShardN int
	// ServerTimeout bounds each server's audit unless the list gives the
	// server its own timeout.
	ServerTimeout time.Duration
	RetryFailed   bool
	Runs          int
	// Progress, when set, gets a line per server.
	Progress io.Writer
	// Base carries the command line's audit settings (image, CA files,
	// a network mode overriding the list's); see ServerOptions.
	Base audit.Options
}

// ServerOptions builds the audit of one version of a configured server.
// base carries the command line's settings (image, CA files); its Network,
// when set, overrides the server's mode, which overrides the file's.
func ServerOptions(cfg *config.Config, s *config.Server, tgt string, base audit.Options) audit.Options {
	o := base
	o.Target, o.Bin, o.Args, o.Env, o.CanaryEnv = tgt, s.Bin, s.Args, s.EnvList(), s.CanaryEnv
	o.Calls, o.Tools, o.ToolArgs = s.Calls, s.Tools, s.ToolArgsJSON
	for _, n := range []string{s.Network, cfg.Network} {
		if o.Network == "" {
			o.Network = n
		}
	}
	o.IdleQuiet, o.IdleMin, o.IdleMax = time.Duration(cfg.Idle.Quiet), time.Duration(cfg.Idle.Min), time.Duration(cfg.Idle.Max)
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

// DefaultJobs is bounded by cores and by memory (a sandbox's default
// memory limit per job).
func DefaultJobs() int {
	n := runtime.NumCPU()
	if mem := totalMemory(); mem > 0 {
		n = min(n, max(1, int(mem/sandbox.DefaultLimits.MemoryBytes)))
	}
	return max(1, n)
}

func totalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%d", &kb)
		}
	}
	return kb << 10
}

// ParseShard reads "K/N".
func ParseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q: want K/N with 1 <= K <= N", s)
	}
	return k, n, nil
}

// Select returns the servers of a shard, sorted by name.
func Select(servers []*config.Server, k, n int) []*config.Server {
	sorted := append([]*config.Server(nil), servers...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	if n == 0 {
		return sorted
	}
	var out []*config.Server
	for i, s := range sorted {
		if i%n+1 == k {
			out = append(out, s)
		}
	}
	return out
}

// Summary counts what a batch did.
type Summary struct {
	Selected, Skipped, Done, Failed int
}

// Run audits the selected servers, jobs at a time, and publishes the
// results. Cancelling ctx stops after the running audits are cleaned up;
// finished servers keep their records.
func Run(ctx context.Context, d audit.Deps, o Options) (Summary, error) {
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs()
	}
	servers := Select(o.List.Servers, o.ShardK, o.ShardN)
	sum := Summary{Selected: len(servers)}
	if err := os.MkdirAll(filepath.Join(o.Out, "records"), 0o755); err != nil {
		return sum, err
	}
	var todo []*config.Server
	for _, s := range servers {
		if r, err := readRecord(o.Out, s.Name); err == nil && (r.Status == StatusDone || !o.RetryFailed) {
			sum.Skipped++
			continue
		}
		todo = append(todo, s)
	}
	var mu sync.Mutex
	next := make(chan *config.Server)
	var wg sync.WaitGroup
	done := 0
	for range min(o.Jobs, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				start := time.Now()
				rec := auditOne(ctx, d, o, s)
				if ctx.Err() != nil {
					return // interrupted: no record, a rerun does it again
				}
				rec.Seconds = float64(time.Since(start).Milliseconds()) / 1000
				rec.AuditedAt = time.Now().UTC().Format(time.RFC3339)
				err := writeRecord(o.Out, rec)
				mu.Lock()
				done++
				if rec.Status == StatusDone {
					sum.Done++
				} else {
					sum.Failed++
				}
				if o.Progress != nil {
					what := rec.Outcome
					if rec.Status == StatusFailed {
						what = "FAILED: " + rec.Reason
					}
					fmt.Fprintf(o.Progress, "[%d/%d] %s %s (%.1fs)\n", done, len(todo), s.Name, what, rec.Seconds)
					if err != nil {
						fmt.Fprintf(o.Progress, "  writing record: %v\n", err)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, s := range todo {
		select {
		case next <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	return sum, Publish(o.Out)
}

// auditOne audits a server and writes its manifest.
func auditOne(ctx context.Context, d audit.Deps, o Options, s *config.Server) Record {
	rec := Record{Server: s.Name, Target: s.Target}
	fail := func(err error) Record {
		rec.Status, rec.Reason = StatusFailed, oneLine(sandbox.Sanitize(err.Error()), 300)
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
	opts := ServerOptions(o.List, s, tgt, o.Base)
	if opts.Deadline == 0 {
		opts.Deadline = o.ServerTimeout
	}
	actx := ctx
	if opts.Deadline > 0 {
		// The deadline bounds the sandboxed run; this also bounds the
		// host-side preparation (download, install, image layer).
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, time.Duration(max(1, o.Runs))*opts.Deadline+2*time.Minute)
		defer cancel()
	}
	res, err := audit.RunStable(actx, d, opts, o.Runs)
	if err != nil && (res == nil || res.Manifest == nil) {
		return fail(err)
	}
	man := res.Manifest
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
	rec.Verdict = "pass"
	if policy.Failed(fs, pol.FailOn) {
		rec.Verdict = "fail"
	}
	if man.Outcome.Status != m.StatusOK {
		rec.Reason = man.Outcome.Reason
		if man.Outcome.ExitCode != nil {
			rec.Reason += fmt.Sprintf(" (exit code %d)", *man.Outcome.ExitCode)
		}
		if why := ReasonLine(man.Run.StderrTail); why != "" {
			rec.Reason += ": " + oneLine(why, 200)
		}
	}
	return rec
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

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// recordPath maps a server name to its record file. Names that are not
// plain file names get a hash suffix, so distinct names never share a file.
func recordPath(out, server string) string {
	name := server
	if !safeName.MatchString(server) {
		sum := sha256.Sum256([]byte(server))
		clean := strings.Map(func(r rune) rune {
			if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return r
			}
			return '_'
		}, server)
		if len(clean) > 60 {
			clean = clean[:60]
		}
		name = strings.TrimLeft(clean, ".") + "~" + hex.EncodeToString(sum[:6])
	}
	return filepath.Join(out, "records", name+".json")
}

// checkRecord rejects records that do not describe a finished or failed
// audit with a manifest inside the results directory. Records of a shard
// come from another job's artifact: they are input, not trusted.
func checkRecord(r *Record) error {
	if r.Server == "" {
		return errors.New("record without server")
	}
	switch r.Status {
	case StatusDone:
		p := r.Manifest
		if !strings.HasPrefix(p, "manifests/") || !strings.HasSuffix(p, ".json") || path.Clean(p) != p || strings.Contains(p, "..") || strings.Contains(p, "\\") {
			return fmt.Errorf("record %s: manifest path %q is not under manifests/", r.Server, p)
		}
	case StatusFailed:
		if r.Manifest != "" {
			return fmt.Errorf("record %s: a failed record has no manifest", r.Server)
		}
	default:
		return fmt.Errorf("record %s: unknown status %q", r.Server, r.Status)
	}
	return nil
}

func readRecord(out, server string) (*Record, error) {
	b, err := os.ReadFile(recordPath(out, server))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if err := checkRecord(&r); err != nil || r.Server != server {
		return nil, fmt.Errorf("invalid record for %s", server)
	}
	if r.Status == StatusDone {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(r.Manifest))); err != nil {
			return nil, errors.New("record without manifest")
		}
	}
	return &r, nil
}

func writeRecord(out string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	p := recordPath(out, r.Server)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// Records reads every record of a results directory, sorted by server.
func Records(out string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(out, "records", "*.json"))
	if err != nil {
		return nil, err
	}
	var rs []Record
	seen := map[string]bool{}
	for _, f := range files {
		b, err := readBounded(f, maxRecord)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := checkRecord(&r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if seen[r.Server] {
			return nil, fmt.Errorf("%s: a second record for server %s", f, r.Server)
		}
		seen[r.Server] = true
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Server < rs[j].Server })
	return rs, nil
}

// Merge combines results directories (shards) into out and publishes.
func Merge(out string, dirs []string) error {
	for _, dir := range dirs {
		rs, err := Records(dir)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if old, err := readRecord(out, r.Server); err == nil && old.Status == StatusDone && r.Status != StatusDone {
				continue // keep a finished audit over a failed one
			}
			if r.Manifest != "" {
				data, err := readBounded(filepath.Join(dir, filepath.FromSlash(r.Manifest)), maxManifest)
				if err != nil {
					return err
				}
				if sum := sha256.Sum256(data); r.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
					return fmt.Errorf("%s: %s does not match the record's digest", dir, r.Manifest)
				}
				man, err := m.Decode(data)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", dir, r.Manifest, err)
				}
				want, err := baseline.Path("manifests", man.Target.Ecosystem, man.Target.Name, man.Target.Version)
				if err != nil || filepath.ToSlash(want) != r.Manifest {
					return fmt.Errorf("%s: %s holds a manifest of %s %s", dir, r.Manifest, man.Target.Name, man.Target.Version)
				}
				dst := filepath.Join(out, filepath.FromSlash(r.Manifest))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(filepath.Join(out, "records"), 0o755); err != nil {
				return err
			}
			if err := writeRecord(out, r); err != nil {
				return err
			}
		}
	}
	return Publish(out)
}

// Bounds on files read back from a results directory.
const (
	maxRecord   = 4 << 20
	maxManifest = 64 << 20
)

func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return b, nil
}
