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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
)

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
	// Audit audits one server (nil: audit.RunStable).
	Audit audit.Func
	// Base carries the command line's audit settings (image, CA files,
	// a network mode overriding the list's); see audit.ForServer.
	Base audit.Options
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

// Summary counts what a batch did.
type Summary struct {
	Selected, Skipped, Done, Failed int
	// Exercised is what the calls of every server in the results (this
	// run's and earlier ones') answered, together.
	Exercised coverage.Tally
}

// Run audits the selected servers, jobs at a time, and publishes the
// results. Cancelling ctx stops after the running audits are cleaned up;
// finished servers keep their records.
func Run(ctx context.Context, d audit.Deps, o Options) (Summary, error) {
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs(SandboxesPerAudit(o.Base))
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
	t := &tally{sum: &sum, total: len(todo), progress: o.Progress}
	next := make(chan *config.Server)
	var wg sync.WaitGroup
	for range min(o.Jobs, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(ctx, d, o, next, t)
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
	var err error
	sum.Exercised, err = publish(o.Out)
	return sum, err
}

// work audits the servers it receives and writes a record for each, until
// next is closed or ctx is cancelled.
func work(ctx context.Context, d audit.Deps, o Options, next <-chan *config.Server, t *tally) {
	for s := range next {
		start := time.Now()
		rec := auditOne(ctx, d, o, s)
		if ctx.Err() != nil {
			return // interrupted: no record, a rerun does it again
		}
		rec.Seconds = float64(time.Since(start).Milliseconds()) / 1000
		rec.AuditedAt = time.Now().UTC().Format(time.RFC3339)
		err := writeRecord(o.Out, rec)
		t.add(s, rec, err)
	}
}

// tally counts finished servers for the summary and the progress lines;
// the workers share it.
type tally struct {
	mu       sync.Mutex
	sum      *Summary
	done     int
	total    int
	progress io.Writer
}

func (t *tally) add(s *config.Server, rec Record, writeErr error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done++
	if rec.Status == StatusDone {
		t.sum.Done++
	} else {
		t.sum.Failed++
	}
	if t.progress == nil {
		return
	}
	what := rec.Outcome
	if rec.Status == StatusFailed {
		what = "FAILED: " + rec.Reason
	}
	fmt.Fprintf(t.progress, "[%d/%d] %s %s (%.1fs)\n", t.done, t.total, s.Name, what, rec.Seconds)
	if writeErr != nil {
		fmt.Fprintf(t.progress, "  writing record: %v\n", writeErr)
	}
}
