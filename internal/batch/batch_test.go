package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

func TestShards(t *testing.T) {
	var servers []*config.Server
	for _, n := range []string{"e", "a", "d", "b", "c"} {
		servers = append(servers, &config.Server{Name: n})
	}
	names := func(ss []*config.Server) (out []string) {
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, names(Select(servers, 0, 0))); diff != "" {
		t.Error(diff)
	}
	got := map[string]int{}
	for k := 1; k <= 3; k++ {
		for _, n := range names(Select(servers, k, 3)) {
			got[n]++
		}
	}
	if len(got) != 5 {
		t.Errorf("shards do not cover the list: %v", got)
	}
	for n, c := range got {
		if c != 1 {
			t.Errorf("%s in %d shards", n, c)
		}
	}
	for _, bad := range []string{"0/2", "3/2", "1/0", "x", "1/2/3x", "-1/2"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if k, n, err := ParseShard("2/4"); err != nil || k != 2 || n != 4 {
		t.Errorf("ParseShard(2/4) = %d %d %v", k, n, err)
	}
}

func TestRecordPathsAreDistinctAndContained(t *testing.T) {
	names := []string{"memory", "a/b", "a_b", "a\\b", "../../etc", "..", ".hidden", "x~y", strings.Repeat("n", 300)}
	seen := map[string]string{}
	for _, n := range names {
		p := recordPath("out", n)
		if filepath.Dir(p) != filepath.Join("out", "records") {
			t.Errorf("%q: record at %s", n, p)
		}
		if len(filepath.Base(p)) > 120 {
			t.Errorf("%q: file name too long: %s", n, p)
		}
		if other, ok := seen[p]; ok {
			t.Errorf("%q and %q share %s", n, other, p)
		}
		seen[p] = n
	}
	if recordPath("out", "memory") != filepath.Join("out", "records", "memory.json") {
		t.Error("plain names are kept")
	}
}

func TestCheckRecordRejectsEscapes(t *testing.T) {
	for _, p := range []string{"../x.json", "manifests/../../x.json", "/etc/passwd", "manifests/a/../../b.json", "manifests\\..\\x.json", "other/x.json", ""} {
		if err := checkRecord(&Record{Server: "s", Status: StatusDone, Manifest: p}); err == nil {
			t.Errorf("manifest path %q accepted", p)
		}
	}
	if err := checkRecord(&Record{Server: "s", Status: "weird"}); err == nil {
		t.Error("unknown status accepted")
	}
	if err := checkRecord(&Record{Server: "s", Status: StatusDone, Manifest: "manifests/npm/x/1.0.0.json"}); err != nil {
		t.Error(err)
	}
}

// writeDone stores a manifest and its record as a finished audit would.
func writeDone(t *testing.T, out, server string, man *m.Manifest, fs []policy.Finding) {
	t.Helper()
	p, err := baseline.Write(filepath.Join(out, "manifests"), man)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	rel, _ := filepath.Rel(out, p)
	sum := sha256.Sum256(data)
	verdict := "pass"
	if policy.Failed(fs, policy.DefaultFailOn) {
		verdict = "fail"
	}
	os.MkdirAll(filepath.Join(out, "records"), 0o755)
	err = writeRecord(out, Record{Server: server, Target: "npm:" + man.Target.Name + "@" + man.Target.Version, Status: StatusDone,
		Ecosystem: man.Target.Ecosystem, Name: man.Target.Name, Version: man.Target.Version, Outcome: man.Outcome.Status,
		Manifest: filepath.ToSlash(rel), Digest: "sha256:" + hex.EncodeToString(sum[:]), Verdict: verdict,
		Counts: policy.Counts(fs), Findings: fs, AuditedAt: "2026-11-29T19:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
}

func sample(name, version string) *m.Manifest {
	return &m.Manifest{SchemaVersion: m.SchemaVersion,
		Target:  m.Target{Ecosystem: "npm", Name: name, Version: version},
		Outcome: m.Outcome{Status: m.StatusOK},
		Phases: []m.Phase{{Name: m.PhaseStartup,
			Files:   []m.FileAccess{{Path: "~/.aws/credentials", Access: "read", Category: "sensitive", Result: "ok"}},
			Network: []m.Connection{{Proto: "tcp", Op: "connect", Name: "collect.evil.example", Port: 443, Category: "egress"}}}},
	}
}

func TestPublishEscapesHostileText(t *testing.T) {
	out := t.TempDir()
	evil := `</script><script>document.title="pwned"</script><img src=x onerror=alert(1)>`
	man := sample("@evil/pkg", "1.0.0")
	fs := policy.Evaluate(man, policy.Policy{FailOn: policy.DefaultFailOn})
	fs = append(fs, policy.Finding{Severity: policy.High, Kind: policy.KindTool, Subject: evil, Summary: evil, Evidence: evil})
	writeDone(t, out, "evil|*name*", man, fs)
	os.MkdirAll(filepath.Join(out, "records"), 0o755)
	writeRecord(out, Record{Server: "broken", Target: "npm:broken", Status: StatusFailed, Reason: evil})
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if strings.Contains(string(html), "<script>document") || strings.Contains(string(html), "<img") {
		t.Error("manifest text reached the HTML unescaped")
	}
	if strings.Count(string(html), "</script>") != 1 {
		t.Errorf("%d closing script tags, want 1 (the page's filter code)", strings.Count(string(html), "</script>"))
	}
	md, _ := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	if strings.Contains(string(md), "<script>") || strings.Contains(string(md), "| evil|") {
		t.Errorf("RESULTS.md carries raw markup:\n%s", md)
	}
	for _, want := range []string{"**0** touched a canary", "**1** contacted or looked up hosts", "**1** touched credential",
		"**1** did not run normally or could not be audited", `collect.evil.example \[startup\]`, "broken"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
	var idx Index
	b, _ := os.ReadFile(filepath.Join(out, "index.json"))
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Servers) != 1 || idx.Servers[0].Manifest != "manifests/npm/@evil/pkg/1.0.0.json" || idx.Servers[0].Verdict != "fail" ||
		idx.Servers[0].Generated != "2026-11-29T19:00:00Z" {
		t.Errorf("index: %+v", idx.Servers)
	}
	if err := VerifyFeed(out); err != nil {
		t.Errorf("feed: %v", err)
	}
	// A failed audit publishes no allow-list: what it did is what nobody
	// should allow.
	if idx.Servers[0].ToolHive != "" || idx.Servers[0].Docker != "" {
		t.Errorf("allow-lists published for a failed audit: %+v", idx.Servers[0])
	}
	if _, err := os.Stat(filepath.Join(out, "profiles")); err == nil {
		t.Errorf("profiles/ written for a failed audit")
	}
	// A manifest changed after publishing no longer matches the feed.
	mp := filepath.Join(out, "manifests", "npm", "@evil", "pkg", "1.0.0.json")
	data, _ := os.ReadFile(mp)
	os.WriteFile(mp, []byte(strings.Replace(string(data), "collect.evil.example", "other.example", 1)), 0o644)
	if err := VerifyFeed(out); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a changed manifest passed verification: %v", err)
	}
}

func TestMergeVerifiesShards(t *testing.T) {
	shard, out := t.TempDir(), t.TempDir()
	writeDone(t, shard, "one", sample("one", "1.0.0"), nil)
	if err := Merge(out, []string{shard}); err != nil {
		t.Fatal(err)
	}
	// A manifest altered after its record was written is refused.
	p := filepath.Join(shard, "manifests", "npm", "one", "1.0.0.json")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "collect.evil.example", "harmless.example", 1)), 0o644)
	if err := Merge(t.TempDir(), []string{shard}); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("tampered manifest merged: %v", err)
	}
	// A record pointing outside manifests/ is refused.
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "records"), 0o755)
	os.WriteFile(filepath.Join(bad, "records", "x.json"), []byte(`{"server":"x","status":"done","manifest":"../../etc/passwd"}`), 0o644)
	if err := Merge(t.TempDir(), []string{bad}); err == nil {
		t.Error("escaping record merged")
	}
	// A manifest stored under another package's path is refused.
	other := t.TempDir()
	writeDone(t, other, "two", sample("two", "2.0.0"), nil)
	rp := recordPath(other, "two")
	rb, _ := os.ReadFile(rp)
	os.MkdirAll(filepath.Join(other, "manifests", "npm", "one", "9.9.9"), 0o755)
	os.Rename(filepath.Join(other, "manifests", "npm", "two", "2.0.0.json"), filepath.Join(other, "manifests", "npm", "one", "9.9.9.json"))
	os.WriteFile(rp, []byte(strings.Replace(string(rb), "manifests/npm/two/2.0.0.json", "manifests/npm/one/9.9.9.json", 1)), 0o644)
	if err := Merge(t.TempDir(), []string{other}); err == nil || !strings.Contains(err.Error(), "holds a manifest of two") {
		t.Errorf("misplaced manifest merged: %v", err)
	}
}

func TestReasonLine(t *testing.T) {
	for stderr, want := range map[string]string{
		"Error loading x: Space metadata could not be loaded.\nfile:///srv/mcp/index.js:52\n    throw new Error(\"No valid endpoints\");\n          ^\n\nError: No valid endpoints found in any of the provided spaces\n    at file:///srv/mcp/index.js:52:11\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n\nNode.js v20.20.2\n": "Error: No valid endpoints found in any of the provided spaces",
		"Fatal error: Error: Connection terminated unexpectedly\n    at /srv/mcp/node_modules/pg-pool/index.js:45:11\n": "Fatal error: Error: Connection terminated unexpectedly",
		"r:1521:14) {\n  tries: [\n    '/srv/a.node',\n    '/srv/b.node'\n  ]\n}\n\nNode.js v20.20.2\n":                 "r:1521:14) {",
		"listening on stdio\n": "listening on stdio",
		"":                     "",
	} {
		if got := ReasonLine(stderr); got != want {
			t.Errorf("ReasonLine(%q) = %q, want %q", stderr, got, want)
		}
	}
}
