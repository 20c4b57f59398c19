package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func supplyLines(man *m.Manifest) []string {
	var out []string
	for _, f := range supplyFindings(man) {
		out = append(out, f.Severity.String()+" "+f.Kind+" "+f.Subject+" | "+f.Summary)
	}
	return out
}

// TestSupplyFindings: what one audit's tree and registry records say. A
// start-up hook that runs code, a look-alike name, a bin named like a
// well-known command, an unpinned range reaching an install script, a
// known-vulnerable version, a deprecated version and a deleted MCP
// registry entry are findings at their weights; the control — the same
// tree with a path-only .pth, exact versions, popular names, no advisory
// and an active entry — has none.
func TestSupplyFindings(t *testing.T) {
	script := deptree.NPMPackage{Path: "node_modules/helper", Name: "helper", Version: "1.2.0", Integrity: "sha512-h",
		InstallScript: true, Scripts: []deptree.Script{{Name: "postinstall", Command: "node setup.js"}}}
	bad := &m.Manifest{Target: m.Target{Name: "srv", Version: "1.0.0", Deprecated: "use srv2",
		MCPRegistry: &m.MCPRegistryEntry{Name: "io.example/srv", Status: m.RegistryDeleted, Source: "registry"}},
		Dependencies: &deptree.Tree{
			NPM: []deptree.NPMPackage{
				{Path: "node_modules/srv", Name: "srv", Version: "1.0.0", Requires: []deptree.Require{{Name: "helper", Range: "^1.0.0"}, {Name: "@modelcontextprotocol/server-filesytem", Range: "1.0.0"}}},
				script,
				{Path: "node_modules/@modelcontextprotocol/server-filesytem", Name: "@modelcontextprotocol/server-filesytem", Version: "1.0.0",
					Bins: []deptree.Bin{{Name: "git", Target: "x.js"}}},
			},
			Hooks: []deptree.Hook{{Path: "x.pth", Kind: deptree.HookPth, Exec: true, ExecLines: 1, Lines: []string{"import os"}}},
		}}
	bad.Run.Advisories = &deptree.AdvisoryReport{Vulnerable: []deptree.Vulnerability{{Name: "helper", Version: "1.2.0",
		Advisory: deptree.Advisory{ID: 7, Title: "RCE", Severity: "critical", VulnerableVersions: "<1.3.0"}}}}
	want := []string{
		"low startup-hook x.pth | a start-up hook that runs code at every interpreter start: x.pth",
		"low lookalike @modelcontextprotocol/server-filesytem bin git | @modelcontextprotocol/server-filesytem provides a command named like git",
		"low lookalike @modelcontextprotocol/server-filesytem | @modelcontextprotocol/server-filesytem resembles @modelcontextprotocol/server-filesystem",
		"medium advisory helper advisory 7 | helper@1.2.0 is covered by advisory 7 (critical): RCE",
		"low unpinned-range srv@1.0.0 → helper ^1.0.0 | srv@1.0.0 depends on helper ^1.0.0 (resolved 1.2.0): users resolve it anew, and it reaches install scripts",
		"low registry-status deprecated | srv@1.0.0 is deprecated",
		"high registry-status mcp-registry io.example/srv | the MCP registry deleted the entry of io.example/srv",
	}
	if diff := cmp.Diff(want, supplyLines(bad)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	ctl := &m.Manifest{Target: m.Target{Name: "srv", Version: "1.0.0",
		MCPRegistry: &m.MCPRegistryEntry{Name: "io.example/srv", Status: m.RegistryActive, Source: "registry"}},
		Dependencies: &deptree.Tree{
			NPM: []deptree.NPMPackage{
				{Path: "node_modules/srv", Name: "srv", Version: "1.0.0", Requires: []deptree.Require{{Name: "helper", Range: "1.2.0"}}},
				script,
				{Path: "node_modules/@modelcontextprotocol/server-filesystem", Name: "@modelcontextprotocol/server-filesystem", Version: "1.0.0"},
			},
			Hooks: []deptree.Hook{{Path: "paths.pth", Kind: deptree.HookPth}},
		}}
	ctl.Run.Advisories = &deptree.AdvisoryReport{}
	if got := supplyLines(ctl); len(got) != 0 {
		t.Errorf("control: %q", got)
	}
}
