package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClockShimFilter runs the entrypoint's trace filter with the clock
// shim on: the shim's own lines (the library's load and the reads of the
// rate file in every process, the shared clock in /dev/shm named after the
// root process, glibc's temporary semaphore file during the root's setup)
// are dropped; the same names after
// setup, in another process, or next to another path are kept.
func TestClockShimFilter(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk on this machine")
	}
	script := string(entryScript)
	head := "cat >\"$D/noise.awk\" <<'AWK'\n"
	start, end := strings.Index(script, head), strings.Index(script, "\nAWK\n")
	if start < 0 || end < start {
		t.Fatal("trace filter not found in entry.sh")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "noise.awk")
	os.WriteFile(prog, []byte(script[start+len(head):end]), 0o644)
	const lib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
	const rate = "/var/lib/faketime/rate"
	drop := []string{
		`21 1.0 openat(AT_FDCWD</w>, "` + lib + `", O_RDONLY|O_CLOEXEC) = 3<` + lib + `>`,
		`21 1.1 openat(AT_FDCWD</w>, "/dev/shm/sem.yPbQ2t", O_RDWR|O_CREAT|O_EXCL, 0600) = 3</dev/shm/sem.yPbQ2t>`,
		`21 1.2 link("/dev/shm/sem.yPbQ2t", "/dev/shm/sem.faketime_sem_21") = 0`,
		`21 1.3 unlink("/dev/shm/sem.yPbQ2t") = 0`,
		`21 1.4 openat(AT_FDCWD</w>, "/dev/shm/faketime_shm_21", O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 3</dev/shm/faketime_shm_21>`,
		`21 1.5 openat(AT_FDCWD</w>, "/dev/shm/sem.faketime_sem_21", O_RDWR|O_NOFOLLOW) = 4</dev/shm/sem.faketime_sem_21>`,
		`21 1.6 openat(AT_FDCWD</w>, "/dev/shm/faketime_shm_21", O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0600) = 4</dev/shm/faketime_shm_21>`,
		`35 2.0 openat(AT_FDCWD</w>, "` + lib + `", O_RDONLY|O_CLOEXEC) = 3<` + lib + `>`,
		`35 2.1 openat(AT_FDCWD</w>, "/dev/shm/sem.faketime_sem_21", O_RDWR|O_NOFOLLOW) = 4</dev/shm/sem.faketime_sem_21>`,
		`21 3.0 unlink("/dev/shm/faketime_shm_21") = 0`,
		`21 3.1 openat(AT_FDCWD</w>, "` + rate + `", O_RDONLY) = 5<` + rate + `>`,
		`35 3.2 openat(AT_FDCWD</w>, "` + rate + `", O_RDONLY) = 5<` + rate + `>`,
	}
	keep := []string{
		`21 1.7 openat(AT_FDCWD</w>, "/dev/shm/sem.zzzzzz", O_RDWR|O_CREAT|O_EXCL, 0600) = 3</dev/shm/sem.zzzzzz>`,
		`35 2.2 openat(AT_FDCWD</w>, "/dev/shm/sem.abcdef", O_RDWR|O_CREAT|O_EXCL, 0600) = 3</dev/shm/sem.abcdef>`,
		`35 2.3 openat(AT_FDCWD</w>, "/dev/shm/sem.faketime_sem_35", O_RDWR|O_CREAT, 0600) = 3</dev/shm/sem.faketime_sem_35>`,
		`21 2.4 rename("/dev/shm/faketime_shm_21", "/home/dev/.bashrc") = 0`,
		`21 2.5 link("` + lib + `", "/home/dev/.bashrc") = 0`,
		`35 2.6 openat(AT_FDCWD</w>, "` + rate + `.new", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`35 2.7 rename("` + rate + `", "/home/dev/.bashrc") = -1 EACCES (Permission denied)`,
	}
	in := append(drop[:7:7], keep...)
	in = append(in, drop[7:]...)
	run := func(shim, clockfile string) string {
		cmd := exec.Command(awk, "-v", "keep=100", "-v", "out="+filepath.Join(dir, "count"), "-v", "shim="+shim, "-v", "clockfile="+clockfile, "-f", prog)
		cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	got := run(lib, rate)
	for _, l := range keep {
		if !strings.Contains(got, l+"\n") {
			t.Errorf("dropped %s", l)
		}
	}
	for _, l := range drop {
		if strings.Contains(got, l+"\n") {
			t.Errorf("kept the shim's %s", l)
		}
	}
	if off := run("", ""); off != strings.Join(in, "\n")+"\n" {
		t.Errorf("without the shim the filter changed lines:\n%s", off)
	}
}
