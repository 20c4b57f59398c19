package classify

import (
	"path"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// The calls without a directory argument (link, rename, unlink, mkdir,
// chmod, …) name a relative path against the process's working
// directory, which strace does not print for them: git links each new
// object into place with link(".git/objects/ab/tmp_obj_…",
// ".git/objects/ab/…") after a chdir into the repository, and a server
// that chdirs into ~/.ssh can rename("id_rsa", …). So the classifier
// keeps each process's working directory from what the trace does show —
// the annotation of AT_FDCWD in any *at call (strace -yy prints it as
// AT_FDCWD</path>), a successful chdir (a relative one against the
// directory known before), an fchdir's annotated descriptor, a fork
// inheriting its parent's — and resolves those paths against it. A
// process whose directory the trace has not shown yet keeps its
// relative paths unresolved (and so unrecorded), as before.

// noDirArg are the calls that name paths with no directory argument, so
// relative to the working directory (an *at call names its dirfd, which
// strace annotates).
var noDirArg = map[string]bool{"open": true, "creat": true, "link": true, "rename": true, "unlink": true, "rmdir": true,
	"mkdir": true, "mknod": true, "chmod": true, "chown": true, "lchown": true, "truncate": true, "utime": true, "utimes": true,
	"access": true, "readlink": true, "symlink": true, "stat": true, "lstat": true, "chdir": true}

// A process's working directory is shared with the threads and children
// cloned with CLONE_FS (libuv's workers run Node's async fs calls: a
// chdir on the main thread moves them too), so each process points at a
// record its group shares; "" is a directory the trace has not shown.
type cwdRec struct{ dir string }

func (c *classifier) cwdOf(pid int) *cwdRec {
	d, ok := c.cwd[pid]
	if !ok {
		d = &cwdRec{}
		c.cwd[pid] = d
	}
	return d
}

// forkCwd gives a child its parent's working directory: the same record
// under CLONE_FS, a copy otherwise.
func (c *classifier) forkCwd(parent, child int, flags []string) {
	d := c.cwdOf(parent)
	if slices.Contains(flags, "CLONE_FS") {
		c.cwd[child] = d
		return
	}
	c.cwd[child] = &cwdRec{dir: d.dir}
}

// learnCwd notes the working directory a record shows for its process.
func (c *classifier) learnCwd(r trace.Record) {
	d := c.cwdOf(r.PID)
	for _, a := range r.Args {
		if strings.HasPrefix(a, "AT_FDCWD<") {
			if dir, ok := trace.Annotation(a); ok && strings.HasPrefix(dir, "/") {
				d.dir = path.Clean(dir)
			}
			return
		}
	}
	switch {
	case r.Failed():
	case r.Name == "chdir" && strings.HasPrefix(r.Path, "/"):
		d.dir = path.Clean(r.Path)
	case r.Name == "chdir":
		if d.dir != "" && r.Path != "" {
			d.dir = path.Join(d.dir, r.Path)
		}
	case r.Name == "fchdir":
		d.dir = "" // until its annotation, or the next *at call, shows where
		if len(r.Args) > 0 {
			if dir, ok := trace.Annotation(r.Args[0]); ok && strings.HasPrefix(dir, "/") {
				d.dir = path.Clean(dir)
			}
		}
	}
}

// inCwd is r with its relative paths resolved against its process's
// working directory, when the call takes no directory argument and the
// trace has shown the directory.
func (c *classifier) inCwd(r trace.Record) trace.Record {
	d := c.cwdOf(r.PID).dir
	if d == "" || !noDirArg[r.Name] {
		return r
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		r.Path = path.Join(d, r.Path)
	}
	if r.Path2 != "" && !strings.HasPrefix(r.Path2, "/") && r.Op != "symlink" {
		r.Path2 = path.Join(d, r.Path2)
	}
	return r
}
