package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// fakeRegistry publishes fixed versions of every package.
type fakeRegistry struct{ versions []string }

func (f fakeRegistry) Fetch(ctx context.Context, name string) (*target.Packument, error) {
	if name == "missing" {
		return nil, fmt.Errorf("%w: npm package %s not found", target.ErrUsage, name)
	}
	p := &target.Packument{Name: name, DistTags: map[string]string{"latest": "1.0.2"}, Versions: map[string]target.Version{}}
	for _, v := range f.versions {
		p.Versions[v] = target.Version{Name: name, Version: v}
	}
	return p, nil
}

var registry = fakeRegistry{versions: []string{"0.9.0", "1.0.0", "1.0.1", "1.0.2", "2.0.0", "2.1.0-beta.1"}}

// loadConfig writes a configuration into a fresh directory (whose
// baselines/ is then empty, with a local server directory srv) and loads it.
func loadConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "srv"), 0o755)
	p := filepath.Join(dir, config.DefaultFile)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const servers = `servers:
  pinned:
    target: npm:pinned
    version: 1.0.0
  ranged:
    target: npm:ranged
    range: "^1.0.0"
  latest:
    target: npm:latest
  local:
    target: ./srv
`

func TestCandidates(t *testing.T) {
	cfg := loadConfig(t, servers)
	for _, tc := range []struct {
		server, base string
		newReleases  bool
		want         []string
	}{
		{"pinned", "", false, []string{"npm:pinned@1.0.0"}},
		{"ranged", "", false, []string{"npm:ranged@1.0.2"}},
		{"latest", "", false, []string{"npm:latest@1.0.2"}},
		{"local", "", false, []string{filepath.Join(filepath.Dir(cfg.Path), "srv")}},
		{"pinned", "1.0.0", true, []string{"npm:pinned@1.0.1", "npm:pinned@1.0.2", "npm:pinned@2.0.0"}},
		{"ranged", "1.0.1", true, []string{"npm:ranged@1.0.2"}},
		{"ranged", "1.0.2", true, nil},
		// Without a baseline, new releases are the version a check would audit.
		{"ranged", "", true, []string{"npm:ranged@1.0.2"}},
	} {
		c := newChecker(cfg, audit.Deps{}, Options{NewReleases: tc.newReleases})
		c.reg = registry
		cands, err := c.candidates(context.Background(), cfg.Server(tc.server), tc.base)
		if err != nil {
			t.Errorf("%s from %q: %v", tc.server, tc.base, err)
			continue
		}
		var got []string
		for _, cand := range cands {
			got = append(got, cand.spec)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s from %q new-releases=%v (-want +got):\n%s", tc.server, tc.base, tc.newReleases, diff)
		}
	}
}

func TestAccept(t *testing.T) {
	cfg := loadConfig(t, servers)
	s := cfg.Server("ranged")
	for _, tc := range []struct {
		opts    Options
		version string
		want    string
	}{
		{Options{Config: config.DefaultFile}, "1.0.2", "mcp-audit baseline update --server ranged --version 1.0.2"},
		{Options{Config: "/abs/ci.yml", ConfigName: "ci.yml"}, "1.0.2", "mcp-audit baseline update --config ci.yml --server ranged --version 1.0.2"},
		{Options{Config: "other.yml"}, "", "mcp-audit baseline update --config other.yml --server ranged"},
	} {
		if got := newChecker(cfg, audit.Deps{}, tc.opts).accept(s, tc.version); got != tc.want {
			t.Errorf("accept(%+v, %q) = %q, want %q", tc.opts, tc.version, got, tc.want)
		}
	}
}

func TestRunRejectsUnknownServerAndSeverity(t *testing.T) {
	cfg := loadConfig(t, servers)
	for _, o := range []Options{{Servers: []string{"nope"}}, {FailOn: "sometimes"}} {
		if _, err := Run(context.Background(), audit.Deps{}, cfg, o); !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

func TestOutcome(t *testing.T) {
	pass := report.DiffReport{Result: &diff.Result{Verdict: "pass"}}
	fail := report.DiffReport{Result: &diff.Result{Verdict: "fail"}}
	broken := report.DiffReport{Error: "no engine"}
	for _, tc := range []struct {
		reports []report.DiffReport
		want    error
	}{
		{nil, nil},
		{[]report.DiffReport{pass}, nil},
		{[]report.DiffReport{pass, fail}, verdict.ErrFindings},
		// A server that could not be audited outranks findings: the
		// results are incomplete.
		{[]report.DiffReport{fail, broken}, audit.ErrRuntime},
	} {
		err := Outcome(tc.reports)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("Outcome(%d reports) = %v, want %v", len(tc.reports), err, tc.want)
		}
	}
}

// TestAbsolute: without a baseline a version is judged by its own
// findings, with no changes listed.
func TestAbsolute(t *testing.T) {
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "x", Version: "1.0.0"},
		Outcome: m.Outcome{Status: "ok"}}
	r := diff.Judge(man, policy.Policy{FailOn: policy.High})
	if r.Verdict != "pass" || len(r.Changes) != 0 || r.Changes == nil || r.New.Version != "1.0.0" {
		t.Errorf("absolute of a quiet manifest: %+v", r)
	}
}

func TestDiscover(t *testing.T) {
	cfg := loadConfig(t, servers)
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "ranged", Version: "1.0.1"}}
	if _, err := baseline.Write(cfg.BaselineDir(), man); err != nil {
		t.Fatal(err)
	}
	got, err := Discover(context.Background(), registry, nil, cfg, []string{"pinned", "ranged", "local"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{
		{Server: "pinned", Package: "pinned", Version: "1.0.0"},
		{Server: "ranged", Package: "ranged", Version: "1.0.2", Baseline: "1.0.1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	bad := loadConfig(t, "servers:\n  a-ok:\n    target: npm:ok\n  z-gone:\n    target: npm:missing\n")
	got, err = Discover(context.Background(), registry, nil, bad, nil)
	if !errors.Is(err, audit.ErrRuntime) || len(got) != 1 {
		t.Errorf("a registry error after one release: %v, %v", got, err)
	}
}

func TestRecordManifests(t *testing.T) {
	cfg := loadConfig(t, servers)
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "pinned", Version: "1.0.0"},
		Outcome: m.Outcome{Status: "ok"}}
	data, err := m.Encode(man)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "pinned.json")
	os.WriteFile(f, data, 0o644)
	written, err := RecordManifests(cfg, []string{f}, "")
	if err != nil || len(written) != 1 {
		t.Fatalf("RecordManifests: %v %v", written, err)
	}
	if v, _ := baseline.Newest(cfg.BaselineDir(), "npm", "pinned"); v != "1.0.0" {
		t.Errorf("newest baseline %q, want 1.0.0", v)
	}
	if _, err := RecordManifests(cfg, []string{f + ".missing"}, ""); !errors.Is(err, verdict.ErrUsage) {
		t.Errorf("missing file: %v, want a usage error", err)
	}
}

// TestRecordManifestRefusesHarm: a manifest that touched a planted canary
// is not recorded as a baseline without --accept-risk; with it, the reason,
// the time and the findings are recorded in the baseline.
func TestRecordManifestRefusesHarm(t *testing.T) {
	cfg := loadConfig(t, servers)
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: "pinned", Version: "1.1.0"},
		Outcome: m.Outcome{Status: "ok"}, Phases: []m.Phase{{Name: m.PhaseStartup,
			Canaries: []m.CanaryHit{{Canary: "file:~/.aws/credentials", How: m.HowFileRead, Evidence: "~/.aws/credentials"}}}}}
	data, _ := m.Encode(man)
	f := filepath.Join(t.TempDir(), "pinned.json")
	os.WriteFile(f, data, 0o644)
	written, err := RecordManifests(cfg, []string{f}, "")
	if !errors.Is(err, verdict.ErrFindings) || len(written) != 0 || !strings.Contains(err.Error(), "~/.aws/credentials") {
		t.Fatalf("want a refusal naming the canary, got %v %v", written, err)
	}
	if v, _ := baseline.Newest(cfg.BaselineDir(), "npm", "pinned"); v == "1.1.0" {
		t.Fatal("the refused manifest was recorded")
	}
	if _, err := RecordManifests(cfg, []string{f}, "vendor confirmed: reads the AWS profile by design"); err != nil {
		t.Fatal(err)
	}
	got, err := baseline.Load(cfg.BaselineDir(), "npm", "pinned", "1.1.0")
	if err != nil || got.AcceptedRisk == nil || got.AcceptedRisk.Reason != "vendor confirmed: reads the AWS profile by design" ||
		got.AcceptedRisk.At == "" || len(got.AcceptedRisk.Findings) == 0 {
		t.Fatalf("accepted risk not recorded: %+v %v", got, err)
	}
}
