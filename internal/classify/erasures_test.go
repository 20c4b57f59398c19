package classify

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// installTrace is npm rebuild (pid 11, plumbing) running a dependency's
// postinstall (pid 12, its shell; 13, node setup.js) that does body.
func installTrace(body string) string {
	return `10    101.000001 execve("/usr/bin/setpriv", ["setpriv", "sh", "-c", "npm rebuild"], 0x1 /* 5 vars */) = 0
10    101.000002 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 11
11    101.000003 execve("/usr/local/bin/node", ["node", "/usr/local/bin/npm", "rebuild"], 0x1 /* 5 vars */) = 0
11    101.000004 openat(AT_FDCWD, "/srv/mcp/node_modules/.package-lock.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 21
11    101.000005 unlink("/srv/mcp/node_modules/.package-lock.json.tmp") = 0
11    101.000006 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 12
12    101.000007 execve("/bin/sh", ["sh", "-c", "node setup.js"], 0x1 /* 5 vars */) = 0
12    101.000008 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 13
13    101.000009 execve("/usr/local/bin/node", ["node", "setup.js"], 0x1 /* 5 vars */) = 0
13    101.000010 openat(AT_FDCWD, "/srv/mcp/node_modules/helper/setup.js", O_RDONLY|O_CLOEXEC) = 20
` + body
}

// TestInstallErasures: an install script that drops a payload, runs it
// and deletes it, deletes itself and renames a clean package.json over
// its own (the axios 1.14.1 dependency) leaves alerts that follow the
// payload through a rename; the control — a build that writes and deletes
// its temporaries, and npm's own rewrites of its lockfile (plumbing) —
// leaves none.
func TestInstallErasures(t *testing.T) {
	bad := installTrace(`13    101.000011 openat(AT_FDCWD, "/tmp/.x1", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0755) = 21
13    101.000012 rename("/tmp/.x1", "/tmp/ld.py") = 0
13    101.000013 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 14
14    101.000014 execve("/usr/bin/python3", ["python3", "/tmp/ld.py"], 0x1 /* 5 vars */) = 0
13    101.000015 unlink("/tmp/ld.py") = 0
13    101.000016 unlink("/srv/mcp/node_modules/helper/setup.js") = 0
13    101.000017 rename("/srv/mcp/node_modules/helper/package.md", "/srv/mcp/node_modules/helper/package.json") = 0
`)
	control := installTrace(`13    101.000011 openat(AT_FDCWD, "/srv/mcp/node_modules/helper/build/obj.d.raw", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 21
13    101.000012 openat(AT_FDCWD, "/srv/mcp/node_modules/helper/build/obj.o", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 22
13    101.000013 unlink("/srv/mcp/node_modules/helper/build/obj.d.raw") = 0
13    101.000014 execve("/usr/bin/python3", ["python3", "/usr/lib/node-gyp/gyp_main.py"], 0x1 /* 5 vars */) = 0
`)
	alerts := func(text string) []string {
		phases := Classify(Input{Layout: layout, Events: parse(t, text), PlumbingRoot: 10,
			Windows: []Window{{Name: m.PhaseInstall, Start: time.Unix(100, 0)}}}).Phases
		var out []string
		for _, a := range phases[0].Alerts {
			out = append(out, a.Kind+" "+a.Detail)
		}
		return out
	}
	want := []string{
		"deleted_existing_file <deps>/helper/setup.js (delete)",
		"dropped_run_deleted /tmp/.x* (create, rename /tmp/ld.py, exec, delete)",
		"replaced_manifest <deps>/helper/package.md (rename <deps>/helper/package.json)",
	}
	got := alerts(bad)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("erasure alerts (-want +got):\n%s", diff)
	}
	if got := alerts(control); len(got) != 0 {
		t.Errorf("control: %q", got)
	}
}
