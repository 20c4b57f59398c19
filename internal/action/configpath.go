package action

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// The config input names the file the check loads from disk and the file
// the base commit's policy is read from with git. Both must be the same
// file: "x/../mcp-audit.yml" loads mcp-audit.yml but names nothing in git,
// which would leave the pull request's own policy standing. So the input
// is cleaned to one path relative to the workspace before anything uses
// it, and a path outside the workspace (by "..", by being absolute
// elsewhere, or through a symbolic link) is a usage error.

// workspaceRel cleans a config input into a slash-separated path relative
// to the workspace ws, or fails when it leaves the workspace.
func workspaceRel(ws, input string) (string, error) {
	p := input
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	rel, err := inside(ws, filepath.Clean(p))
	if err != nil {
		return "", fmt.Errorf("%w: input config: %q is outside the workspace", verdict.ErrUsage, input)
	}
	// The file itself may be a link out of the workspace: resolve both.
	realWS, err1 := filepath.EvalSymlinks(ws)
	realP, err2 := filepath.EvalSymlinks(filepath.Join(ws, rel))
	if err1 == nil && err2 == nil {
		if _, err := inside(realWS, realP); err != nil {
			return "", fmt.Errorf("%w: input config: %q links outside the workspace", verdict.ErrUsage, input)
		}
	} else if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: input config: resolving %q: %v", verdict.ErrUsage, input, err2)
	}
	return filepath.ToSlash(rel), nil
}

// inside is p relative to dir, or an error when p is not below dir.
func inside(dir, p string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absP, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absP)
	if err != nil {
		return "", err
	}
	if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("outside")
	}
	return rel, nil
}
