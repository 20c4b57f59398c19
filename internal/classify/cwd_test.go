package classify

import (
	"slices"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestRelativePathsInTheWorkingDirectory: link, rename and unlink name
// paths relative to a working directory strace does not print for them;
// resolved against the one an *at call, a chdir or the parent showed,
// git's link of a new object into place is a create in the workspace, and
// a rename of ~/.ssh/id_rsa after a chdir into ~/.ssh is recorded. A
// process whose directory the trace never showed keeps them unrecorded;
// a thread shares its process's directory, a forked child copies it.
func TestRelativePathsInTheWorkingDirectory(t *testing.T) {
	const tr = `11 101.1 execve("/usr/local/bin/node", ["node", "/srv/mcp/index.js"], 0x7f /* 5 vars */) = 0
11 101.2 openat(AT_FDCWD</home/dev/workspace>, "/srv/mcp/index.js", O_RDONLY) = 3</srv/mcp/index.js>
11 101.3 clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 20
20 101.4 execve("/usr/bin/git", ["git", "add", "-A"], 0x7f /* 5 vars */) = 0
20 101.5 link(".git/objects/b0/tmp_obj_RlfG8x", ".git/objects/b0/17623c744e4854c19bcac30772fe35562b79f0") = 0
20 101.6 unlink(".git/objects/b0/tmp_obj_RlfG8x") = 0
11 101.7 chdir("/home/dev") = 0
11 101.8 chdir(".ssh") = 0
11 101.9 rename("id_rsa", "/tmp/k") = 0
30 102.0 rename("id_ed25519", "/tmp/j") = 0
11 102.1 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, child_tidptr=0x7f) = 12
11 102.2 clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 13
11 102.3 chdir("/home/dev/.aws") = 0
12 102.4 rename("credentials", "/tmp/c") = 0
13 102.5 unlink("known_hosts") = 0
`
	var got []string
	for _, p := range Classify(Input{Layout: layout, Events: parse(t, tr)}).Phases {
		for _, f := range p.Files {
			if f.Access != m.AccessRead && f.Access != m.AccessExec && f.Access != m.AccessStat {
				got = append(got, f.Access+" "+f.Path)
			}
		}
	}
	// The thread shares the main thread's directory (CLONE_FS) and sees its
	// later chdir; the forked child keeps the one it had at the fork; a
	// relative chdir's own path is against the directory before it.
	for _, want := range []string{"create <workspace>/.git/objects/b0/*", "delete <workspace>/.git/objects/b0/tmp_obj_RlfG8x", "rename ~/.ssh/id_rsa",
		"rename ~/.aws/credentials", "delete ~/.ssh/known_hosts", "chdir ~/.ssh"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q in %v", want, got)
		}
	}
	for _, g := range got {
		if strings.Contains(g, "id_ed25519") || strings.Contains(g, ".ssh/.ssh") {
			t.Errorf("a path relative to a directory never shown was resolved: %q", g)
		}
	}
}
