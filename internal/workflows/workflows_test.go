package workflows

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

const root = "../.."

// TestActionlint lints every workflow with actionlint (as a library, so no
// tool needs installing). shellcheck is used for run: scripts when it is
// installed.
func TestActionlint(t *testing.T) {
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found only %d workflows", len(files))
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
	t.Logf("%d workflows linted", len(files))
}

// TestHardened checks the safe patterns the docs promise: minimal default
// permissions, no pull_request_target, third-party actions pinned by
// commit.
func TestHardened(t *testing.T) {
	files, _ := Files(root)
	usesRe := regexp.MustCompile(`uses:\s*([^\s#]+)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(string(data), "\n") {
			if i := strings.Index(l, "#"); i >= 0 {
				l = l[:i] // comments may name what the workflow avoids
			}
			lines = append(lines, l)
		}
		text := strings.Join(lines, "\n")
		name := filepath.Base(f)
		if !strings.Contains(text, "\npermissions: {}") && !strings.Contains(text, "\npermissions:\n  contents: read") {
			t.Errorf("%s: top-level permissions must be {} or read-only", name)
		}
		if strings.Contains(text, "pull_request_target") {
			t.Errorf("%s: pull_request_target runs untrusted code with a privileged token", name)
		}
		for _, m := range usesRe.FindAllStringSubmatch(text, -1) {
			ref := m[1]
			if strings.HasPrefix(ref, "./") || (ref == releasedAction && strings.Contains(f, "docs/workflows")) {
				continue
			}
			_, at, ok := strings.Cut(ref, "@")
			if !ok || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(at) {
				t.Errorf("%s: %s is not pinned to a commit", name, ref)
			}
		}
	}
}
