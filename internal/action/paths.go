package action

import (
	"os"
	"path/filepath"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
)

// Where the Action writes. A Docker container action sees only what GitHub
// mounts into it: the workspace (/github/workspace), the home directory
// (/github/home), the workflow directory with the event payload and the
// file-command files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV).
// RUNNER_TEMP and the other RUNNER_* variables name paths on the runner's
// host, which do not exist in the container, so they are never used. Files
// that later steps read go to the workspace, and their outputs are
// workspace-relative: a later step runs in the workspace whether it runs on
// the host (where it is GITHUB_WORKSPACE) or in a container (where it is
// /github/workspace), while an absolute path is only right in one of them.

// reportDir holds the Markdown report, in the workspace. A .gitignore in
// it keeps the report out of `git status` and `git add -A`.
const reportDir = ".mcp-audit"

// reportFile is the Markdown report, relative to the workspace.
var reportFile = filepath.Join(reportDir, "report.md")

// htmlReportFile is the side-by-side rug-pull view (report --format
// html), relative to the workspace, for a later step to upload.
var htmlReportFile = filepath.Join(reportDir, "report.html")

// writeWorkspaceFile writes data to rel (relative to the workspace unless
// absolute) and returns the path to give as an output: relative when it is
// in the workspace, as given otherwise.
func (r *run) writeWorkspaceFile(rel string, data []byte) (string, error) {
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.ws, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := fsutil.WriteFileAtomic(p, data); err != nil {
		return "", err
	}
	return rel, nil
}

// writeReport writes the Markdown report into the workspace.
func (r *run) writeReport(md []byte) (string, error) {
	if err := os.MkdirAll(filepath.Join(r.ws, reportDir), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(r.ws, reportDir, ".gitignore"), []byte("*\n"), 0o644); err != nil {
		return "", err
	}
	return r.writeWorkspaceFile(reportFile, md)
}
