package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoiseFilter runs the entrypoint's noise filter (awk, as in the
// sandbox) over crafted lines: only failed lookups of temporary, system and
// package paths past the budget are dropped; a successful open whose path
// imitates a failure, and a path with a .. component, are always kept.
func TestNoiseFilter(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk on this machine")
	}
	script := string(entryScript)
	start := strings.Index(script, "cat >\"$D/noise.awk\" <<'AWK'\n")
	end := strings.Index(script, "\nAWK\n")
	if start < 0 || end < start {
		t.Fatal("noise filter not found in entry.sh")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "noise.awk")
	os.WriteFile(prog, []byte(script[start+len("cat >\"$D/noise.awk\" <<'AWK'\n"):end]), 0o644)
	lines := []string{
		`21 1.0 openat(AT_FDCWD</w>, "/tmp/x1", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`21 1.1 openat(AT_FDCWD</w>, "/tmp/x2", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`21 1.2 openat(AT_FDCWD</w>, "/tmp/ = -1 ENOENT /../../home/dev/.ssh/id_rsa", O_RDONLY|O_NOATIME) = 18</home/dev/.ssh/id_rsa>`,
		`21 1.3 openat(AT_FDCWD</w>, "/tmp/a/../b", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`21 1.4 openat(AT_FDCWD</w>, "/home/dev/.kube/config", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`21 1.5 openat(AT_FDCWD</w>, "/usr/lib/zz", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`21 1.6 openat(AT_FDCWD</w>, "/tmp/ok", O_RDONLY) = 3</tmp/ok>`,
	}
	cmd := exec.Command(awk, "-v", "keep=1", "-v", "out="+filepath.Join(dir, "count"), "-f", prog)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, keep := range []int{0, 2, 3, 4, 6} {
		if !strings.Contains(got, lines[keep]) {
			t.Errorf("dropped %s", lines[keep])
		}
	}
	for _, drop := range []int{1, 5} {
		if strings.Contains(got, lines[drop]) {
			t.Errorf("kept noise %s", lines[drop])
		}
	}
	if n, _ := os.ReadFile(filepath.Join(dir, "count")); strings.TrimSpace(string(n)) != "2" {
		t.Errorf("dropped count %q, want 2", n)
	}
}
