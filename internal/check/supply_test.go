package check

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

var clock = time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)

// datedRegistry publishes 1.0.0 (and 1.14.0) long ago and 1.0.1 (and
// 1.14.1, 4.2.1) three hours before the clock, of every package, and says
// so in the document's time field.
type datedRegistry struct{}

func (datedRegistry) Fetch(ctx context.Context, name string) (*target.Packument, error) {
	p := &target.Packument{Name: name, DistTags: map[string]string{"latest": "1.0.1"}, Versions: map[string]target.Version{},
		Time: map[string]string{"1.0.0": "2025-01-01T00:00:00Z", "1.14.0": "2025-01-01T00:00:00Z"}}
	for _, young := range []string{"1.0.1", "1.14.1", "4.2.1"} {
		p.Time[young] = clock.Add(-3 * time.Hour).Format(time.RFC3339)
	}
	for _, v := range []string{"1.0.0", "1.0.1"} {
		p.Versions[v] = target.Version{Name: name, Version: v}
	}
	return p, nil
}

func tree(pkgs ...deptree.NPMPackage) *deptree.Tree { return &deptree.Tree{NPM: pkgs} }

func pkg(name, version string, script bool) deptree.NPMPackage {
	p := deptree.NPMPackage{Path: "node_modules/" + name, Name: name, Version: version, Integrity: "sha512-" + name + version}
	if script {
		p.InstallScript, p.Scripts = true, []deptree.Script{{Name: "postinstall", Command: "node setup.js"}}
	}
	return p
}

// supplyChecker is a checker of server srv (npm:srv, range ^1.0.0) with a
// baseline of 1.0.0 whose tree is base, auditing with a fake that
// returns a manifest of the version asked for, with the tree of resolved.
func supplyChecker(t *testing.T, extra string, o Options, base, resolved *deptree.Tree) (*checker, *[]string) {
	t.Helper()
	cfg := loadConfig(t, extra+"servers:\n  srv:\n    target: npm:srv\n    range: \"^1.0.0\"\n")
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Method: m.MethodVersion, Target: m.Target{Ecosystem: "npm", Name: "srv", Version: "1.0.0"},
		Outcome: m.Outcome{Status: m.StatusOK}, Dependencies: base}
	if _, err := baseline.Write(cfg.BaselineDir(), man); err != nil {
		t.Fatal(err)
	}
	var audited []string
	o.Audit = func(ctx context.Context, d audit.Deps, ao audit.Options, runs int) (*audit.Result, error) {
		audited = append(audited, ao.Target)
		_, v, _ := strings.Cut(strings.TrimPrefix(ao.Target, "npm:"), "@")
		return &audit.Result{Manifest: &m.Manifest{SchemaVersion: m.SchemaVersion, Method: m.MethodVersion,
			Target: m.Target{Ecosystem: "npm", Name: "srv", Version: v}, Outcome: m.Outcome{Status: m.StatusOK}, Dependencies: resolved}}, nil
	}
	o.Now = func() time.Time { return clock }
	c := newChecker(cfg, audit.Deps{}, o)
	c.reg = datedRegistry{}
	return c, &audited
}

// TestTooNew: a release three hours old is not audited under the default
// minimum age: it is incomplete (exit 4), says when it becomes eligible,
// and leaves no manifest for the Action to propose. --min-release-age 0,
// or a configured age it passes, judges it.
func TestTooNew(t *testing.T) {
	base := tree(pkg("srv", "1.0.0", false))
	dir := t.TempDir()
	c, audited := supplyChecker(t, "", Options{Manifests: dir}, base, base)
	reports := c.checkServer(context.Background(), c.cfg.Server("srv"))
	if len(reports) != 1 || reports[0].TooNew == nil {
		t.Fatalf("want one too-new report, got %+v", reports)
	}
	r := reports[0]
	if want := clock.Add(45 * time.Hour).Format(time.RFC3339); r.TooNew.Eligible != want || r.Result.Verdict != m.VerdictIncomplete {
		t.Errorf("eligible %s (want %s), verdict %s", r.TooNew.Eligible, want, r.Result.Verdict)
	}
	if len(*audited) != 0 {
		t.Errorf("a too-new release was audited: %v", *audited)
	}
	if err := Outcome(reports); !errors.Is(err, verdict.ErrIncomplete) {
		t.Errorf("outcome %v, want incomplete", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("manifests written for a too-new release: %v", files)
	}
	var text strings.Builder
	report.WriteDiffs(&text, report.FormatText, reports)
	if !strings.Contains(text.String(), "too-new: srv 1.0.1 was published at 2026-03-31T09:00:00Z") {
		t.Errorf("the text report does not say why:\n%s", text.String())
	}
	zero := time.Duration(0)
	for name, tc := range map[string]struct {
		extra string
		o     Options
	}{"--min-release-age 0": {"", Options{MinReleaseAge: &zero}}, "min_release_age: 2h": {"min_release_age: 2h\n", Options{}}} {
		c, audited := supplyChecker(t, tc.extra, tc.o, base, base)
		reports := c.checkServer(context.Background(), c.cfg.Server("srv"))
		if len(*audited) != 1 || reports[0].TooNew != nil || reports[0].Result.Verdict != m.VerdictPass {
			t.Errorf("%s: audited %v, report %+v", name, *audited, reports[0])
		}
	}
}

// TestNewResolution: with no new release (the range pinned to the
// baseline's version), the baseline's tree resolved again to one that
// adds a dependency with an install script is a candidate of its own:
// audited, compared, failing on the new dependency. The control — the
// same tree — audits nothing. A resolution to a package younger than the
// minimum age is too new.
func TestNewResolution(t *testing.T) {
	zero := time.Duration(0)
	base := tree(pkg("srv", "1.0.0", false), pkg("axios", "1.14.0", false))
	changed := tree(pkg("srv", "1.0.0", false), pkg("axios", "1.14.1", false), pkg("plain-crypto", "4.2.1", true))
	for name, tc := range map[string]struct {
		resolved    *deptree.Tree
		age         *time.Duration
		wantAudited int
		want        string
	}{
		"changed":          {changed, &zero, 1, "high dependency plain-crypto"},
		"control":          {base, &zero, 0, ""},
		"changed, too new": {changed, nil, 0, "too-new"},
	} {
		t.Run(name, func(t *testing.T) {
			o := Options{MinReleaseAge: tc.age, NewReleases: true,
				Resolve: func(ctx context.Context, spec string) (*deptree.Tree, error) { return tc.resolved, nil }}
			c, audited := supplyChecker(t, "", o, base, tc.resolved)
			// 1.0.1 is published but out of this server's range.
			c.cfg.Server("srv").Range = "1.0.0"
			reports := c.checkServer(context.Background(), c.cfg.Server("srv"))
			if len(*audited) != tc.wantAudited {
				t.Errorf("audited %v, want %d audit(s)", *audited, tc.wantAudited)
			}
			var got []string
			for _, r := range reports {
				if r.TooNew != nil {
					got = append(got, "too-new")
				}
				for _, f := range r.Result.Findings {
					got = append(got, f.Severity.String()+" "+f.Kind+" "+f.Subject)
				}
			}
			if tc.want == "" && len(reports) != 0 || tc.want != "" && (len(got) == 0 || got[0] != tc.want) {
				t.Errorf("reports %d, findings %q, want %q", len(reports), got, tc.want)
			}
		})
	}
}

type fakeAdvisor map[string][]deptree.Advisory

func (f fakeAdvisor) Advisories(ctx context.Context, q map[string][]string) (map[string][]deptree.Advisory, error) {
	return f, nil
}

// TestRegistryStatusAndAdvisories: a server given by a server.json whose
// entry the (fake, loopback) MCP registry deleted fails with a high
// registry-status finding; an active entry is none. Both trees are
// matched against one advisory answer: a release that leaves a
// vulnerable version says it fixes the advisory.
func TestRegistryStatusAndAdvisories(t *testing.T) {
	for _, status := range []string{m.RegistryDeleted, m.RegistryActive} {
		var asked string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = r.URL.EscapedPath()
			w.Write([]byte(`{"server":{"name":"io.example/srv","version":"1.0.1"},"_meta":{"` + "io.modelcontextprotocol.registry/official" + `":{"status":"` + status + `"}}}`))
		}))
		dir := t.TempDir()
		sj := filepath.Join(dir, "server.json")
		os.WriteFile(sj, []byte(`{"name":"io.example/srv","version":"1.0.1","packages":[{"registryType":"npm","identifier":"srv","version":"1.0.1"}]}`), 0o644)
		zero := time.Duration(0)
		base := tree(pkg("srv", "1.0.0", false), pkg("axios", "1.14.0", false))
		o := Options{MinReleaseAge: &zero, Advisor: fakeAdvisor{"axios": {{ID: 9, Title: "SSRF", Severity: "high", VulnerableVersions: "<1.14.1"}}}}
		cfg := loadConfig(t, "mcp_registry: "+srv.URL+"\nservers:\n  srv:\n    server_json: "+sj+"\n")
		c, _ := supplyChecker(t, "", o, base, tree(pkg("srv", "1.0.1", false), pkg("axios", "1.14.1", false)))
		c.cfg = cfg
		baseline.Write(cfg.BaselineDir(), &m.Manifest{SchemaVersion: m.SchemaVersion, Method: m.MethodVersion,
			Target: m.Target{Ecosystem: "npm", Name: "srv", Version: "1.0.0"}, Outcome: m.Outcome{Status: m.StatusOK}, Dependencies: base})
		reports := c.checkServer(context.Background(), cfg.Server("srv"))
		srv.Close()
		if len(reports) != 1 || reports[0].Result == nil {
			t.Fatalf("%s: %+v", status, reports)
		}
		r := reports[0].Result
		if asked != "/v0/servers/io.example%2Fsrv/versions/1.0.1" {
			t.Errorf("asked the registry for %q", asked)
		}
		deleted := false
		for _, f := range r.Findings {
			deleted = deleted || f.Kind == "registry-status" && f.Severity.String() == "high"
		}
		if deleted != (status == m.RegistryDeleted) || (r.Verdict == m.VerdictFail) != deleted {
			t.Errorf("%s: verdict %s, findings %+v", status, r.Verdict, r.Findings)
		}
		fixed := false
		for _, ch := range r.Changes {
			fixed = fixed || ch.Area == m.AreaDependency && strings.HasPrefix(ch.Detail, "fixes 1 advisory")
		}
		if !fixed {
			t.Errorf("%s: the fixed advisory is not shown: %+v", status, r.Changes)
		}
	}
}
