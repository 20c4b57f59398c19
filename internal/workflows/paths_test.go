package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

func TestGatePaths(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "srv", "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "srv", "pkg.tgz"), []byte("x"), 0o644)
	text := "baselines: trusted\nservers:\n  d:\n    target: ./srv/dir\n  t:\n    target: srv/pkg.tgz\n  n:\n    target: npm:n\n"
	cfg, err := config.Parse(filepath.Join(root, "mcp-audit.yml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(GatePaths(root, cfg), " ")
	if want := "mcp-audit.yml srv/dir/** srv/pkg.tgz trusted/**"; got != want {
		t.Errorf("paths %q, want %q", got, want)
	}
}

// TestOwnGateWatchesEverything: the repository's own PR gate starts on
// every change the Action checks (GatePaths of its configuration).
func TestOwnGateWatchesEverything(t *testing.T) {
	abs, _ := filepath.Abs(root)
	cfg, err := config.Load(filepath.Join(abs, "mcp-audit.yml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "mcp-audit.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			PullRequest struct {
				Paths []string `yaml:"paths"`
			} `yaml:"pull_request"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for _, p := range GatePaths(abs, cfg) {
		if !slices.Contains(wf.On.PullRequest.Paths, p) {
			t.Errorf("the PR gate's paths %v lack %s", wf.On.PullRequest.Paths, p)
		}
	}
}
