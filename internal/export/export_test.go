package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestExports(t *testing.T) {
	man := &m.Manifest{Target: m.Target{Name: "gh-mcp", Version: "1.2.0"}, Phases: []m.Phase{
		{Name: "startup", Network: []m.Connection{{Proto: "tcp", Op: "connect", Name: "api.github.example", Port: 443, Category: "egress"},
			{Proto: "udp", Op: "connect", Address: "127.0.0.1", Port: 53, Category: "dns"}}},
		{Name: "call:search", Network: []m.Connection{{Proto: "tcp", Op: "connect", Address: "192.0.2.7", Port: 8443, Category: "egress"},
			{Proto: "tcp", Op: "connect", Name: "api.github.example", Port: 443, Category: "egress"}}},
	}}
	b, err := ToolHive(man)
	if err != nil {
		t.Fatal(err)
	}
	var prof map[string]any
	if err := json.Unmarshal(b, &prof); err != nil {
		t.Fatal(err)
	}
	out := prof["network"].(map[string]any)["outbound"].(map[string]any)
	// 192.0.2.7 is a documentation address, not a public one: never exported.
	if diff := cmp.Diff([]any{"api.github.example"}, out["allow_host"]); diff != "" {
		t.Errorf("allow_host (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{443.0}, out["allow_port"]); diff != "" {
		t.Errorf("allow_port (-want +got):\n%s", diff)
	}
	if out["insecure_allow_all"] != false {
		t.Error("must not allow all")
	}
	want := "# gh-mcp 1.2.0: hosts observed by mcp-audit\nallowHosts:\n  - \"api.github.example:443\"\n"
	if got := string(DockerAllowHosts(man)); got != want {
		t.Errorf("docker:\n%s\nwant:\n%s", got, want)
	}
	empty := &m.Manifest{Target: m.Target{Name: "x", Version: "1"}}
	if got := string(DockerAllowHosts(empty)); got != "# x 1: hosts observed by mcp-audit\nallowHosts: []\n" {
		t.Errorf("empty: %q", got)
	}
	evil := &m.Manifest{Target: m.Target{Name: "x\nallowHosts: [\"*\"]", Version: "1"}, Phases: []m.Phase{{Name: "startup",
		Network: []m.Connection{{Proto: "tcp", Name: "a.example\n- \"*:*\"", Port: 443, Category: "egress"}}}}}
	got := string(DockerAllowHosts(evil))
	if strings.Count(got, "\n") != 2 || strings.Contains(got, "  - ") || !strings.HasPrefix(got, `# x\nallowHosts`) {
		t.Errorf("a hostile name escaped its line:\n%s", got)
	}
}
