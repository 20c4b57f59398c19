package action

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// TestWorkspaceRel: the config input is cleaned to one path inside the
// workspace; anything that leaves it is a usage error.
func TestWorkspaceRel(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "p.yml"), []byte("servers: {}\n"), 0o644)
	os.Symlink(filepath.Join(outside, "p.yml"), filepath.Join(ws, "link.yml"))
	for in, want := range map[string]string{
		"mcp-audit.yml": "mcp-audit.yml", "x/../mcp-audit.yml": "mcp-audit.yml", "./ci//a.yml": "ci/a.yml",
		filepath.Join(ws, "ci", "a.yml"): "ci/a.yml",
	} {
		if got, err := workspaceRel(ws, in); err != nil || got != want {
			t.Errorf("workspaceRel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"../mcp-audit.yml", "x/../../mcp-audit.yml", filepath.Join(outside, "p.yml"), ".", "link.yml"} {
		if got, err := workspaceRel(ws, in); !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("workspaceRel(%q) = %q, %v; want a usage error", in, got, err)
		}
	}
}
