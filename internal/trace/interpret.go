package trace

import (
	"slices"
	"strings"
)

// Kind classifies what a syscall did, independent of which syscall it was.
type Kind int

// Kinds of records.
const (
	KindOther Kind = iota
	KindFile
	KindExec
	KindSocket  // socket()
	KindNet     // connect, bind, listen, send*
	KindProcess // clone, fork, kill, exit
	KindAlert   // io_uring, ptrace, memfd_create, bpf, unshare, setns, …
)

// Record is an Event interpreted into the fields the classifier needs.
type Record struct {
	Event
	Kind Kind
	// Op is a normalized operation: open, creat, access, readlink, unlink,
	// rmdir, mkdir, rename, link, symlink, chmod, truncate, chdir, mount,
	// utime, exec, socket, connect, bind, listen, accept, send, clone, fork,
	// kill, exit, or the syscall name for alerts.
	Op string
	// Path is the absolute path the call named, resolved against its dirfd
	// annotation when relative. Path2 is the second path (rename/link
	// destination, symlink link name).
	Path, Path2 string
	// Write and Create describe open flags; Trunc means O_TRUNC.
	Write, Create, Trunc bool
	// NoAtime means O_NOATIME: the open leaves the access time alone.
	NoAtime bool
	// Argv is the argument vector of execve.
	Argv        []string
	ArgvTrunc   bool
	Addr        *SockAddr
	Data        [][]byte // buffers handed to send calls
	DataTrunc   bool
	SockFamily  string // socket(): AF_INET…
	SockType    string // socket(): SOCK_STREAM…
	CloneFlags  []string
	Child       int // new pid for clone/fork
	SignalPID   int // kill/tgkill target
	Signal      string
	Description string // for alerts: a short summary
}

// SockAddr is a decoded sockaddr.
type SockAddr struct {
	Family string // AF_INET, AF_INET6, AF_UNIX, AF_NETLINK, …
	IP     string
	Port   int
	Path   string // AF_UNIX path; abstract names start with "@"
}

// args are the printed arguments of one call. A hostile or cut line may
// print fewer than the syscall takes, so they are read through at.
type args []string

// at returns the i-th argument, or "" when strace printed fewer.
func (a args) at(i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}

// interpreters each handle one family of syscalls and report whether the
// event was theirs. Their syscall names are disjoint, so the order only
// saves work: the common file calls come first.
var interpreters = []func(r *Record, a args) bool{
	interpretOpen,
	interpretFileMeta,
	interpretNameChange,
	interpretExec,
	interpretProcess,
	interpretSocket,
	interpretSend,
	interpretAlert,
}

// Interpret decodes one event. Unknown syscalls yield KindOther.
func Interpret(ev Event) Record {
	r := Record{Event: ev, Op: ev.Name}
	for _, interpret := range interpreters {
		if interpret(&r, ev.Args) {
			break
		}
	}
	return r
}

var alertSyscalls = map[string]bool{
	"io_uring_setup": true, "io_uring_enter": true, "io_uring_register": true,
	"ptrace": true, "memfd_create": true, "bpf": true, "unshare": true, "setns": true,
	"process_vm_readv": true, "process_vm_writev": true, "seccomp": true,
}

// interpretAlert handles calls that are suspicious in themselves: a
// sandboxed server has no business mounting, tracing or leaving its
// namespaces.
func interpretAlert(r *Record, a args) bool {
	if r.Name == "SIGSYS" {
		// "{si_signo=SIGSYS, si_code=SYS_SECCOMP, …, si_syscall=__NR_seccomp, …}"
		name := "unknown"
		if _, after, ok := strings.Cut(a.at(0), "si_syscall=__NR_"); ok {
			name, _, _ = strings.Cut(after, ",")
		}
		r.Kind, r.Op = KindAlert, strings.TrimSpace(name)
		r.Description = r.Op + " trapped by the sandbox's seccomp profile (SIGSYS)"
		return true
	}
	if r.Name == "mount" {
		r.Kind, r.Op, r.Path = KindAlert, "mount", absPath("", a.at(1))
		r.Description = "mount " + UnquoteString(a.at(0)) + " on " + r.Path
		return true
	}
	if !alertSyscalls[r.Name] {
		return false
	}
	r.Kind = KindAlert
	r.Description = r.Name
	if r.Name == "seccomp" {
		// Only a filter with a listener can hide calls (its notified
		// calls run without a ptrace stop); other filters cannot
		// outrank the tracer's without making the call fail.
		if !strings.Contains(a.at(1), "SECCOMP_FILTER_FLAG_NEW_LISTENER") {
			r.Kind = KindOther
			return true
		}
		r.Description += " " + a.at(0) + ", " + a.at(1)
	}
	if r.Name == "unshare" || r.Name == "setns" {
		r.Description += " " + strings.Join(a, ", ")
	}
	return true
}

// UntracedClone reports whether a clone asked the kernel not to let the
// child be traced.
func (r *Record) UntracedClone() bool {
	return slices.Contains(r.CloneFlags, "CLONE_UNTRACED")
}
