package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Git runs git in dir with a fixed identity, failing the test on error.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t.example", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// GitOut runs git in dir and returns its output.
func GitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// Repo makes a git workspace with a base commit holding files, then a
// head commit applying change (a pull request's two sides).
func Repo(t testing.TB, base, change map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	Git(t, ws, "init", "-q", "-b", "main")
	for _, files := range []map[string]string{base, change} {
		for p, body := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
			os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644)
		}
		Git(t, ws, "add", "-A")
		Git(t, ws, "commit", "-q", "-m", "c")
	}
	return ws
}
