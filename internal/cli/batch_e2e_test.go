package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/batch"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestBatch audits a small list with the real CLI: a real npm MCP server,
// fixtures that behave well and badly, one that fails to install (its
// dependency does not exist) and one that never answers. It is
// interrupted, resumed, rerun, then run again as two shards that are
// merged and compared with the unsharded results.
func TestBatch(t *testing.T) {
	testenv.Image(t)
	testenv.SinkBinary(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	reg := testenv.NewRegistry(t)
	reg.PublishFixture(t, fixture, "@batchtest/tools", "1.0.0", "tools")
	reg.PublishFixture(t, fixture, "@batchtest/creds", "1.0.0", "read-credentials")
	reg.PublishFixture(t, fixture, "@batchtest/hang", "1.0.0", "never-answer")
	reg.PublishFixtureDeps(t, fixture, "@batchtest/broken", "1.0.0", map[string]string{"@batchtest/not-published": "1.0.0"})

	// Only the fixtures' scope comes from the local registry; the real
	// server comes from the default one.
	home := t.TempDir()
	rc := filepath.Join(home, "npmrc")
	os.WriteFile(rc, []byte("@batchtest:registry="+reg.URL+"\n"+strings.TrimPrefix(reg.URL, "http:")+":_authToken=test-token\n"), 0o600)
	t.Setenv("NPM_CONFIG_USERCONFIG", rc)
	if c := os.Getenv("MCP_AUDIT_TEST_CACHE"); c != "" {
		t.Setenv("XDG_CACHE_HOME", c)
	} else {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
	}

	dir := t.TempDir()
	list := filepath.Join(dir, "servers.yml")
	os.WriteFile(list, []byte(`idle: {quiet: 500ms, min: 200ms, max: 5s}
servers:
  memory:
    target: npm:@modelcontextprotocol/server-memory
    version: 2026.8.31
    env: {MEMORY_FILE_PATH: "{workspace}/memory.jsonl"}
  tools:
    target: npm:@batchtest/tools
  creds:
    target: npm:@batchtest/creds
  hang:
    target: npm:@batchtest/hang
    timeout: 15s
  broken:
    target: npm:@batchtest/broken
`), 0o644)

	run := func(ctx context.Context, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Run(ctx, args, nil, &out, &errb, os.Getenv)
		return code, out.String() + errb.String()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	full := filepath.Join(dir, "full")

	// 1. Interrupt the batch as soon as the first server is finished.
	ictx, icancel := context.WithCancel(ctx)
	go func() {
		defer icancel()
		for ictx.Err() == nil {
			if fs, _ := filepath.Glob(filepath.Join(full, "records", "*.json")); len(fs) > 0 {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	code, out := run(ictx, "batch", "--list", list, "--out", full, "--jobs", "1")
	progress := out
	if code != ExitInterrupted {
		t.Fatalf("interrupted batch: exit %d\n%s", code, out)
	}
	first, _ := filepath.Glob(filepath.Join(full, "records", "*.json"))
	if len(first) == 0 || len(first) == 5 {
		t.Fatalf("after the interruption: %d records\n%s", len(first), out)
	}
	if left := testenv.Leftovers(t); len(left) != 0 {
		t.Errorf("the interrupted batch left containers: %v", left)
	}
	kept := map[string][]byte{}
	for _, f := range first {
		kept[f], _ = os.ReadFile(f)
	}

	// 2. Resume: the finished server is skipped, the rest are audited.
	code, out = run(ctx, "batch", "--list", list, "--out", full, "--jobs", "2")
	if code != ExitOK {
		t.Fatalf("resumed batch: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "5 selected, "+strconv.Itoa(len(first))+" already done") {
		t.Errorf("resume did not skip the finished servers:\n%s", out)
	}
	for f, b := range kept {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, b) {
			t.Errorf("%s was audited again", f)
		}
	}
	recs, err := batch.Records(full)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]batch.Record{}
	for _, r := range recs {
		byName[r.Server] = r
	}
	check := func(name, status, outcome, verdict, reason string) {
		t.Helper()
		r, ok := byName[name]
		if !ok {
			t.Errorf("%s: no record", name)
			return
		}
		if r.Status != status || r.Outcome != outcome || r.Verdict != verdict || !strings.Contains(r.Reason, reason) {
			t.Errorf("%s: status %q outcome %q verdict %q reason %q; want %q %q %q ~%q", name, r.Status, r.Outcome, r.Verdict, r.Reason,
				status, outcome, verdict, reason)
		}
	}
	check("memory", batch.StatusDone, m.StatusOK, "pass", "")
	check("tools", batch.StatusDone, m.StatusOK, "fail", "") // its read_ssh tool reads a canary
	check("creds", batch.StatusDone, m.StatusOK, "fail", "")
	check("hang", batch.StatusDone, m.StatusKilled, m.VerdictIncomplete, "the audit deadline was reached") // not audited is not a pass
	check("broken", batch.StatusFailed, "", "", "@batchtest/not-published")
	if progress += out; !strings.Contains(progress, "broken FAILED: ") || !strings.Contains(progress, "] hang killed (") {
		t.Errorf("progress does not show the failure:\n%s", out)
	}
	if r := byName["memory"]; r.Manifest != "manifests/npm/@modelcontextprotocol/server-memory/2026.8.31.json" || r.AuditedAt == "" {
		t.Errorf("memory manifest at %q", r.Manifest)
	}
	if err := batch.VerifyFeed(full); err != nil {
		t.Errorf("feed: %v", err)
	}
	results, _ := os.ReadFile(filepath.Join(full, "RESULTS.md"))
	for _, want := range []string{"**2** touched a canary", "* **tools**: file:\\~/.ssh/id\\_rsa file-read \\[call:read\\_ssh", "**2** did not run normally or could not be audited",
		"**hang** (npm:\\@batchtest/hang\\@1.0.0): killed — the audit deadline was reached", "**broken** (npm:\\@batchtest/broken\\@1.0.0): not audited — "} {
		if !strings.Contains(string(results), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, results)
		}
	}
	if p, err := os.Stat(filepath.Join(full, "report.html")); err != nil || p.Size() < 5000 {
		t.Errorf("report.html: %v", err)
	}

	// 3. A rerun has nothing left to do; a failed server is retried only
	// when asked.
	code, out = run(ctx, "batch", "--list", list, "--out", full)
	if code != ExitOK || !strings.Contains(out, "5 selected, 5 already done, 0 audited, 0 failed") {
		t.Errorf("rerun: exit %d\n%s", code, out)
	}
	code, out = run(ctx, "batch", "--list", list, "--out", full, "--retry-failed")
	if code != ExitOK || !strings.Contains(out, "5 selected, 4 already done, 0 audited, 1 failed") {
		t.Errorf("rerun with --retry-failed: exit %d\n%s", code, out)
	}

	// 4. Two shards, merged, equal the unsharded results. The runs are
	// separate audits, so what they compare must not hang on timing: the
	// hang server's deadline leaves its install and start (under a loaded
	// CI machine, more than 8 s) well inside it, so every file it reads
	// falls in the same phase.
	s1, s2, merged := filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), filepath.Join(dir, "merged")
	for i, d := range []string{s1, s2} {
		if code, out := run(ctx, "batch", "--list", list, "--out", d, "--shard", strconv.Itoa(i+1)+"/2", "--jobs", "2"); code != ExitOK {
			t.Fatalf("shard %d: exit %d\n%s", i+1, code, out)
		}
	}
	if code, out := run(ctx, "merge", "--out", merged, s1, s2); code != ExitOK {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	if err := batch.VerifyFeed(merged); err != nil {
		t.Errorf("merged feed: %v", err)
	}
	if diff := cmp.Diff(comparable(t, full), comparable(t, merged)); diff != "" {
		t.Errorf("merged shards differ from the unsharded batch (-full +merged):\n%s", diff)
	}

	// The merged report, made of real manifests, in a real browser.
	if _, err := exec.LookPath("chromium"); err == nil || os.Getenv("MCP_AUDIT_REQUIRE_CHROMIUM") != "" {
		page := testenv.LoadPage(t, filepath.Join(merged, "report.html"), "", true)
		if len(page.Console) != 0 || !strings.Contains(page.DOM, `data-shown="5"`) || testenv.Colors(t, page.Screenshot) < 8 {
			t.Errorf("report in chromium: console %q, ready/shown wrong or blank", page.Console)
		}
		for name := range byName {
			if !strings.Contains(page.DOM, `data-server="`+name+`"`) {
				t.Errorf("report has no card for %s", name)
			}
		}
	}

	// 5. Export: the bad server gets no allow-list (it would permit what
	// it did); the clean one does.
	code, out = run(ctx, "export", "--format", "docker", filepath.Join(full, filepath.FromSlash(byName["creds"].Manifest)))
	if code != ExitFindings || !strings.Contains(out, "no allow-list for @batchtest/creds") {
		t.Errorf("export of the failing server: exit %d\n%s", code, out)
	}
	code, out = run(ctx, "export", "--format", "docker", filepath.Join(full, filepath.FromSlash(byName["memory"].Manifest)))
	if code != ExitOK || !strings.Contains(out, "allowHosts:") {
		t.Errorf("export of the clean server: exit %d\n%s", code, out)
	}
}
