package trace

import (
	"path"
	"regexp"
	"strings"
)

// interpretOpen handles the calls that open a file, recording whether the
// flags let the caller write, create or truncate it.
func interpretOpen(r *Record, a args) bool {
	switch r.Name {
	case "open", "creat":
		r.Path = absPath("", a.at(0))
		if r.Name == "creat" {
			r.Write, r.Create, r.Trunc = true, true, true
		} else {
			r.setOpenFlags(a.at(1))
		}
	case "openat":
		r.Path = absPath(a.at(0), a.at(1))
		r.setOpenFlags(a.at(2))
	case "openat2":
		r.Path = absPath(a.at(0), a.at(1))
		f, _ := Field(a.at(2), "flags")
		r.setOpenFlags(f)
	default:
		return false
	}
	r.Kind, r.Op = KindFile, "open"
	return true
}

// interpretFileMeta handles calls that name one path without opening it:
// existence probes, directory creation, mode and time changes.
func interpretFileMeta(r *Record, a args) bool {
	switch r.Name {
	case "access":
		r.Op, r.Path = "access", absPath("", a.at(0))
	case "faccessat", "faccessat2":
		r.Op, r.Path = "access", absPath(a.at(0), a.at(1))
	case "readlink":
		r.Op, r.Path = "readlink", absPath("", a.at(0))
	case "readlinkat":
		r.Op, r.Path = "readlink", absPath(a.at(0), a.at(1))
	case "mkdir":
		r.Op, r.Path = "mkdir", absPath("", a.at(0))
	case "mkdirat":
		r.Op, r.Path = "mkdir", absPath(a.at(0), a.at(1))
	case "chmod":
		r.Op, r.Path = "chmod", absPath("", a.at(0))
	case "fchmodat", "fchmodat2":
		r.Op, r.Path = "chmod", absPath(a.at(0), a.at(1))
	case "truncate":
		r.Op, r.Path = "truncate", absPath("", a.at(0))
	case "chdir":
		r.Op, r.Path = "chdir", absPath("", a.at(0))
	case "utime", "utimes":
		r.Op, r.Path = "utime", absPath("", a.at(0))
	case "utimensat", "futimesat":
		r.Op, r.Path = "utime", absPath(a.at(0), a.at(1))
	default:
		return false
	}
	r.Kind = KindFile
	return true
}

// interpretNameChange handles calls that remove or add a name for a file.
// The classifier follows renames and links, so both paths are kept.
func interpretNameChange(r *Record, a args) bool {
	switch r.Name {
	case "unlink":
		r.Op, r.Path = "unlink", absPath("", a.at(0))
	case "rmdir":
		r.Op, r.Path = "rmdir", absPath("", a.at(0))
	case "unlinkat":
		r.Op, r.Path = "unlink", absPath(a.at(0), a.at(1))
		if strings.Contains(a.at(2), "AT_REMOVEDIR") {
			r.Op = "rmdir"
		}
	case "rename":
		r.Op, r.Path, r.Path2 = "rename", absPath("", a.at(0)), absPath("", a.at(1))
	case "renameat", "renameat2":
		r.Op, r.Path, r.Path2 = "rename", absPath(a.at(0), a.at(1)), absPath(a.at(2), a.at(3))
	case "link":
		r.Op, r.Path, r.Path2 = "link", absPath("", a.at(0)), absPath("", a.at(1))
	case "linkat":
		r.Op, r.Path, r.Path2 = "link", absPath(a.at(0), a.at(1)), absPath(a.at(2), a.at(3))
	case "symlink":
		// symlink(target, linkpath): Path is the link, Path2 what it points to.
		r.Op, r.Path, r.Path2 = "symlink", absPath("", a.at(1)), UnquoteString(a.at(0))
	case "symlinkat":
		r.Op, r.Path, r.Path2 = "symlink", absPath(a.at(1), a.at(2)), UnquoteString(a.at(0))
	default:
		return false
	}
	r.Kind = KindFile
	return true
}

func (r *Record) setOpenFlags(flags string) {
	for _, f := range Flags(flags) {
		switch f {
		case "O_WRONLY", "O_RDWR":
			r.Write = true
		case "O_CREAT", "O_TMPFILE":
			r.Create = true
		case "O_TRUNC":
			r.Trunc = true
		case "O_APPEND":
			r.Write = true
		case "O_NOATIME":
			r.NoAtime = true
		}
	}
}

// absPath resolves a path argument against a dirfd argument's annotation.
// Paths that cannot be resolved are returned as printed.
func absPath(dirfd, p string) string {
	s, _, ok := Unquote(p)
	if !ok {
		return ""
	}
	name := string(s)
	if strings.HasPrefix(name, "/") {
		return path.Clean(unmagic(name, dirfd))
	}
	base := ""
	if dirfd == "" {
		return name // relative to an unknown cwd; kept as printed
	}
	if ann, ok := Annotation(dirfd); ok && strings.HasPrefix(ann, "/") {
		base = ann
	}
	if base == "" {
		return name
	}
	if name == "" {
		return path.Clean(base)
	}
	return path.Join(base, name)
}

var (
	// /proc/self/root/home/dev/.ssh/id_rsa, /proc/thread-self/root/…,
	// /proc/42/task/43/root/…: every process in the sandbox has the
	// container's root, so these are the path after the prefix.
	reProcRoot = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/root(/|$)`)
	// /proc/self/cwd/../.ssh/id_rsa: the caller's working directory.
	reProcCwd = regexp.MustCompile(`^/proc/(self|thread-self)/cwd(/|$)`)
)

// unmagic replaces the /proc magic links that stand for a known directory
// (the root, and the caller's cwd when strace annotated AT_FDCWD with it)
// before the path is cleaned: cleaning /proc/self/cwd/../x lexically would
// give /proc/self/x, not the file the kernel opens. Links to open fds
// (/proc/self/fd/N/…) are left: an open's returned fd names the real file.
func unmagic(name, dirfd string) string {
	for range 8 {
		if loc := reProcRoot.FindStringIndex(name); loc != nil {
			name = "/" + name[loc[1]:]
			continue
		}
		if loc := reProcCwd.FindStringIndex(name); loc != nil && strings.HasPrefix(dirfd, "AT_FDCWD") {
			if cwd, ok := Annotation(dirfd); ok && strings.HasPrefix(cwd, "/") {
				name = cwd + "/" + name[loc[1]:]
				continue
			}
		}
		break
	}
	return name
}
