package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// TestBrowserProvenance: only the image's Chromium, started by its own
// path (or its self-exec), may read and write its own processes' /proc
// bookkeeping unreported; a look-alike, a program the browser started, and
// the browser reading another process's status are judged as always.
func TestBrowserProvenance(t *testing.T) {
	const (
		node    = `11    1795973127.700001 execve("/usr/local/bin/node", ["node", "/srv/mcp/node_modules/pkg/dist/index.js"], 0x7f /* 5 vars */) = 0` + "\n"
		fork    = `11    1795973127.700100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 20` + "\n"
		browser = `20    1795973127.700200 execve("/usr/lib/chromium/chromium", ["chromium", "--headless"], 0x7f /* 5 vars */) = 0` + "\n"
	)
	// status: pid reads /proc/<of>/status ("self" as written, or a pid).
	status := func(pid, of string) string {
		real := of
		if of == "self" {
			real = pid
		}
		return pid + `    1795973127.709000 openat(AT_FDCWD</tmp>, "/proc/` + of + `/status", O_RDONLY|O_CLOEXEC) = 5</proc/` + real + `/status>` + "\n"
	}
	for _, tc := range []struct {
		name  string
		trace string
		want  []string // anti-analysis paths and alerts listed
	}{
		{"the browser's own status", node + fork + browser + status("20", "self"), nil},
		{"its self-exec'd utility process", node + fork + browser +
			`20    1795973127.700300 clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 21` + "\n" +
			`21    1795973127.700400 execve("/proc/self/exe", ["/proc/self/exe", "--type=utility"], 0x7f /* 5 vars */) = 0` + "\n" +
			status("21", "self") + status("20", "21"), nil},
		{"its shared memory", node + fork + browser + `20    1795973127.700300 memfd_create("", MFD_CLOEXEC) = 6</memfd: (deleted)>` + "\n", nil},
		{"the server itself", node + status("11", "self") + `11    1795973127.700300 memfd_create("x", MFD_CLOEXEC) = 6</memfd:x (deleted)>` + "\n",
			[]string{"/proc/self/status", "memfd_create"}},
		{"the browser reading the server's status", node + fork + browser + status("20", "11"), []string{"/proc/<pid>/status"}},
		{"a look-alike path", node + fork +
			`20    1795973127.700200 execve("/tmp/usr/lib/chromium/chromium", ["chromium"], 0x7f /* 5 vars */) = 0` + "\n" + status("20", "self"),
			[]string{"/proc/self/status"}},
		{"the server's own self-exec", node + fork +
			`20    1795973127.700200 execve("/proc/self/exe", ["node"], 0x7f /* 5 vars */) = 0` + "\n" + status("20", "self"),
			[]string{"/proc/self/status"}},
		{"a program the browser started", node + fork + browser +
			`20    1795973127.700300 execve("/bin/sh", ["sh", "-c", "x"], 0x7f /* 5 vars */) = 0` + "\n" + status("20", "self"),
			[]string{"/proc/self/status"}},
		{"a failed exec leaves the server as it was", node + fork +
			`20    1795973127.700200 execve("/usr/lib/chromium/chromium", ["chromium"], 0x7f /* 5 vars */) = -1 EACCES (Permission denied)` + "\n" + status("20", "self"),
			[]string{"/proc/self/status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, flagged(t, tc.trace)); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
		})
	}
}

// flagged classifies a trace and returns what it lists as anti-analysis
// reads and alerts.
func flagged(t *testing.T, raw string) []string {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader(raw), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := Classify(Input{Layout: layout, Events: tr.Events})
	var got []string
	for _, p := range out.Phases {
		for _, f := range p.Files {
			if f.Category == m.CatAntiAnalysis {
				got = append(got, f.Path)
			}
		}
		for _, a := range p.Alerts {
			got = append(got, a.Kind)
		}
	}
	return got
}
