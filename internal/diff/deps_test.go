package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

func npmPkg(name, version string, requires ...string) deptree.NPMPackage {
	p := deptree.NPMPackage{Path: "node_modules/" + name, Name: name, Version: version, Integrity: "sha512-" + name + version}
	for _, r := range requires {
		p.Requires = append(p.Requires, deptree.Require{Name: r, Range: "^1.0.0"})
	}
	return p
}

func withTree(version string, t *deptree.Tree) *m.Manifest {
	man := base()
	man.Target.Version = version
	man.Dependencies = t
	return man
}

func findingLines(r *Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Severity.String()+" "+f.Kind+" "+f.Subject)
	}
	return out
}

// TestDependencyRugPull: a release that adds a dependency whose
// postinstall runs (the axios 1.14.1 pattern) is a high dependency
// finding and fails; the same release without it (the control) lists its
// version change and passes. The same version with other content is
// critical.
func TestDependencyRugPull(t *testing.T) {
	old := withTree("1.0.0", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.0", "axios"), npmPkg("axios", "1.14.0")}})
	helper := npmPkg("plain-crypto", "4.2.1")
	helper.InstallScript, helper.Scripts = true, []deptree.Script{{Name: "postinstall", Command: "node setup.js"}}
	bad := withTree("1.0.1", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.1", "axios"), npmPkg("axios", "1.14.1", "plain-crypto"), helper}})
	control := withTree("1.0.1", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.1", "axios"), npmPkg("axios", "1.14.1")}})
	swapped := withTree("1.0.0", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.0", "axios"), npmPkg("axios", "1.14.0")}})
	swapped.Dependencies.NPM[1].Integrity = "sha512-other"
	pol := policy.Policy{FailOn: policy.High}
	for _, tc := range []struct {
		name    string
		new     *m.Manifest
		want    []string
		verdict string
	}{
		{"adds a dependency with an install script", bad, []string{"high dependency plain-crypto",
			// npm packages ship no lockfile: the ranges that reach it are
			// what brought it to users without a release of the server.
			"low unpinned-range axios@1.14.1 → plain-crypto ^1.0.0", "low unpinned-range mail-mcp@1.0.1 → axios ^1.0.0"}, m.VerdictFail},
		{"control: the same release without it", control, nil, m.VerdictPass},
		{"same version, other content", swapped, []string{"critical integrity axios"}, m.VerdictFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Compare(old, tc.new, pol)
			if diff := cmp.Diff(tc.want, findingLines(r)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", r.Verdict, tc.verdict)
			}
			var dep int
			for _, c := range r.Changes {
				if c.Area == m.AreaDependency {
					dep++
				}
			}
			if dep == 0 {
				t.Errorf("no dependency change listed: %+v", r.Changes)
			}
		})
	}
}

// TestStartupHookRugPull: a release whose wheel adds a .pth that runs
// code (the litellm 1.82.7 pattern) is high; one that adds a .pth of
// paths only (the control) is a change and no finding.
func TestStartupHookRugPull(t *testing.T) {
	dist := deptree.PyDist{Name: "srv", Key: "srv", Version: "1.0.0", Dir: "srv-1.0.0.dist-info"}
	old := withTree("1.0.0", &deptree.Tree{Python: []deptree.PyDist{dist}})
	exec := deptree.Hook{Path: "srv_init.pth", Kind: deptree.HookPth, Digest: "sha256:1", Exec: true, ExecLines: 1,
		Lines: []string{"import os; exec(open('/tmp/x').read())"}, Owner: "srv"}
	paths := deptree.Hook{Path: "srv_paths.pth", Kind: deptree.HookPth, Digest: "sha256:2", Owner: "srv"}
	pol := policy.Policy{FailOn: policy.High}
	bad := Compare(old, withTree("1.0.1", &deptree.Tree{Python: []deptree.PyDist{dist}, Hooks: []deptree.Hook{exec}}), pol)
	if diff := cmp.Diff([]string{"high startup-hook srv_init.pth"}, findingLines(bad)); diff != "" || bad.Verdict != m.VerdictFail {
		t.Errorf("executing .pth: verdict %s, findings (-want +got):\n%s", bad.Verdict, diff)
	}
	ctl := Compare(old, withTree("1.0.1", &deptree.Tree{Python: []deptree.PyDist{dist}, Hooks: []deptree.Hook{paths}}), pol)
	if len(ctl.Findings) != 0 || ctl.Verdict != m.VerdictPass || len(ctl.Changes) != 1 {
		t.Errorf("path-only .pth: verdict %s, findings %q, changes %+v", ctl.Verdict, findingLines(ctl), ctl.Changes)
	}
}

// TestAdvisoryDelta: both sides matched against the same advisories, a
// release that leaves one vulnerable version and enters another says
// "fixes 1 advisory, adds 1", and the new one is a medium finding; a
// bump that stays in the vulnerable range is neither.
func TestAdvisoryDelta(t *testing.T) {
	a1 := deptree.Advisory{ID: 1, Title: "prototype pollution", Severity: "high", VulnerableVersions: "<1.14.1"}
	a2 := deptree.Advisory{ID: 2, Title: "SSRF", Severity: "moderate", VulnerableVersions: "<2.0.0"}
	old := withTree("1.0.0", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("axios", "1.14.0")}})
	old.Run.Advisories = &deptree.AdvisoryReport{Vulnerable: []deptree.Vulnerability{{Name: "axios", Version: "1.14.0", Advisory: a1},
		{Name: "axios", Version: "1.14.0", Advisory: a2}}}
	new := withTree("1.0.1", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("axios", "1.14.1"), npmPkg("tar", "6.0.0")}})
	new.Run.Advisories = &deptree.AdvisoryReport{Vulnerable: []deptree.Vulnerability{{Name: "axios", Version: "1.14.1", Advisory: a2},
		{Name: "tar", Version: "6.0.0", Advisory: deptree.Advisory{ID: 3, Title: "path traversal", Severity: "high", VulnerableVersions: "<6.1.0"}}}}
	r := Compare(old, new, policy.Policy{FailOn: policy.High})
	var summary string
	for _, c := range r.Changes {
		if c.Area == m.AreaDependency && c.Subject == "advisories" {
			summary = c.Detail
		}
	}
	if want := "fixes 1 advisory, adds 1 (fixed axios@1.14.0 advisory 1; added tar@6.0.0 advisory 3)"; summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	if diff := cmp.Diff([]string{"medium advisory tar advisory 3"}, findingLines(r)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestTargetVersionIsNoDependencyChange: the tree holds the target itself,
// whose new version is what the comparison is of; a dependency's new
// version (the control) is still listed.
func TestTargetVersionIsNoDependencyChange(t *testing.T) {
	old := withTree("1.0.0", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.0", "axios"), npmPkg("axios", "1.14.0")}})
	same := withTree("1.0.1", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.1", "axios"), npmPkg("axios", "1.14.0")}})
	if r := Compare(old, same, policy.Policy{FailOn: policy.High}); len(r.Changes) != 0 {
		t.Errorf("identical but for the target's version: %+v", r.Changes)
	}
	dep := withTree("1.0.1", &deptree.Tree{NPM: []deptree.NPMPackage{npmPkg("mail-mcp", "1.0.1", "axios"), npmPkg("axios", "1.14.1")}})
	r := Compare(old, dep, policy.Policy{FailOn: policy.High})
	if len(r.Changes) != 1 || r.Changes[0].Subject != "npm axios" {
		t.Errorf("a dependency's new version: %+v", r.Changes)
	}
}
