package action

import (
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

// A local directory or tarball server is its files: a pull request that
// changes them changes the server even when mcp-audit.yml is untouched.
// Its content hash is git's object id of the path at each commit (a tree
// for a directory, a blob for a tarball), so any change to a file in it,
// added, removed or renamed, is seen.

// localPath is a local server's path relative to the workspace, "" for a
// registry package or a path outside the repository.
func localPath(ws string, s *config.Server) string {
	if !s.Spec.Ecosystem().Local || s.Spec.Path == "" {
		return ""
	}
	rel, err := filepath.Rel(ws, s.Spec.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// contentHash is the git object id of a path at a commit, "" when the
// commit has no such path.
func contentHash(ws, rev, rel string) string {
	out, err := git(ws, "rev-parse", "--verify", "--quiet", rev+":"+rel)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// localContentChanged reports whether a local server's files differ
// between base and HEAD.
func localContentChanged(ws, base string, s *config.Server) bool {
	rel := localPath(ws, s)
	if rel == "" {
		return false
	}
	return contentHash(ws, base, rel) != contentHash(ws, "HEAD", rel)
}
