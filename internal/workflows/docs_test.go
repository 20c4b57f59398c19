package workflows

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// releasedAction is how the copy-paste workflows in docs/ (and the
// README) use the Action: pinned by the commit SHA of a release, with its
// version in a comment, as every action is pinned (docs/action.md says
// why); the reader puts in the SHA the release tag points to. It is the
// one reference TestHardened accepts without a 40-digit SHA.
const releasedAction = "mcp-audit/mcp-audit@<release-commit-sha>"

// TestDocsShowTheShippedWorkflows: docs/action.md shows each copy-paste
// workflow of docs/workflows verbatim, so the text people copy is the text
// actionlint and TestHardened checked.
func TestDocsShowTheShippedWorkflows(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "workflows", "*.yml"))
	if len(files) < 2 {
		t.Fatalf("want the PR gate and the scheduled re-audit in docs/workflows, found %v", files)
	}
	for _, f := range files {
		body, _ := os.ReadFile(f)
		if !strings.Contains(string(doc), "```yaml\n"+string(body)+"```\n") {
			t.Errorf("docs/action.md does not show %s verbatim in a yaml block", filepath.Base(f))
		}
		if !strings.Contains(string(body), releasedAction) {
			t.Errorf("%s does not use %s", filepath.Base(f), releasedAction)
		}
	}
}

// minMajor is the oldest major version of each action that runs on
// node24 (GitHub retires node20 for actions).
var minMajor = map[string]int{
	"actions/checkout": 5, "actions/setup-go": 6, "actions/upload-artifact": 5, "actions/download-artifact": 6,
	"actions/upload-pages-artifact": 5, "actions/deploy-pages": 5, "github/codeql-action/upload-sarif": 4,
	"actions/attest-build-provenance": 3,
}

// TestPinnedActionsRunOnNode24: every pinned action names its version in
// a comment, and that version is a node24 major.
func TestPinnedActionsRunOnNode24(t *testing.T) {
	files, _ := Files(root)
	re := regexp.MustCompile(`uses:\s*([^@\s]+)@[0-9a-f]{40}(?:\s*#\s*v(\d+))?`)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			min, ok := minMajor[m[1]]
			if !ok {
				t.Errorf("%s: %s: add its node24 major to minMajor", filepath.Base(f), m[1])
				continue
			}
			if major, _ := strconv.Atoi(m[2]); major < min {
				t.Errorf("%s: %s is pinned at v%s (comment), want v%d or newer (node24)", filepath.Base(f), m[1], m[2], min)
			}
		}
	}
}

// TestDependabotKeepsPinsCurrent: Dependabot watches the actions, the Go
// modules and the Dockerfile's base-image digests.
func TestDependabotKeepsPinsCurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, eco := range []string{"github-actions", "gomod", "docker"} {
		if !strings.Contains(string(data), "package-ecosystem: "+eco) {
			t.Errorf("dependabot.yml does not watch %s", eco)
		}
	}
}

// TestOneWayToPinTheAction: the README and every doc pin the Action the
// same way, by a release commit's SHA with a version comment; none uses a
// movable tag.
func TestOneWayToPinTheAction(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	wf, _ := filepath.Glob(filepath.Join(root, "docs", "workflows", "*.yml"))
	uses := regexp.MustCompile(`mcp-audit/mcp-audit@(\S+)(\s*#\s*(v[0-9.]+))?`)
	found := 0
	for _, f := range append(files, wf...) {
		body, _ := os.ReadFile(f)
		for _, m := range uses.FindAllStringSubmatch(string(body), -1) {
			if strings.HasPrefix(m[1], "sha256:") {
				continue // the image by digest, not the Action
			}
			found++
			if "mcp-audit/mcp-audit@"+m[1] != releasedAction || m[3] == "" {
				t.Errorf("%s pins the Action as %q: want %s # vX.Y.Z", filepath.Base(f), m[0], releasedAction)
			}
		}
	}
	if found < 3 {
		t.Errorf("the Action is named %d times in the README and docs", found)
	}
}
