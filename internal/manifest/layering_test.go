package manifest_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPureLayers keeps the pure packages — the data's path from trace to
// report — free of Docker, the sink's netfilter plumbing and GitHub: they
// import formats, never adapters (house style: domain at the bottom,
// adapters at the edges).
func TestPureLayers(t *testing.T) {
	pure := []string{"manifest", "trace", "classify", "policy", "diff", "report", "textsafe", "sinklog", "canary", "export", "observe", "differ", "merge"}
	forbidden := []string{"github.com/moby/", "github.com/google/nftables", "github.com/vishvananda/netlink",
		"github.com/google/go-github", "github.com/sethvargo/go-githubactions",
		"github.com/mcp-audit/mcp-audit/internal/sandbox", "github.com/mcp-audit/mcp-audit/internal/sink",
		"github.com/mcp-audit/mcp-audit/internal/gh", "github.com/mcp-audit/mcp-audit/internal/target"}
	for _, p := range pure {
		out, err := exec.Command("go", "list", "-deps", "github.com/mcp-audit/mcp-audit/internal/"+p).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", p, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, bad := range forbidden {
				if dep == strings.TrimSuffix(bad, "/") || strings.HasPrefix(dep, bad) && strings.HasSuffix(bad, "/") || dep == bad {
					t.Errorf("internal/%s depends on %s", p, dep)
				}
			}
		}
	}
}
