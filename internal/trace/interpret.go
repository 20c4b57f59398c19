package trace

import (
	"path"
	"regexp"
	"slices"
	"strconv"
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

var alertSyscalls = map[string]bool{
	"io_uring_setup": true, "io_uring_enter": true, "io_uring_register": true,
	"ptrace": true, "memfd_create": true, "bpf": true, "unshare": true, "setns": true,
	"process_vm_readv": true, "process_vm_writev": true,
}

// Interpret decodes one event. Unknown syscalls yield KindOther.
func Interpret(ev Event) Record {
	r := Record{Event: ev, Op: ev.Name}
	a := ev.Args
	arg := func(i int) string {
		if i < len(a) {
			return a[i]
		}
		return ""
	}
	switch ev.Name {
	case "open", "creat":
		r.Kind, r.Op = KindFile, "open"
		r.Path = absPath("", arg(0))
		if ev.Name == "creat" {
			r.Write, r.Create, r.Trunc = true, true, true
		} else {
			r.setOpenFlags(arg(1))
		}
	case "openat":
		r.Kind, r.Op = KindFile, "open"
		r.Path = absPath(arg(0), arg(1))
		r.setOpenFlags(arg(2))
	case "openat2":
		r.Kind, r.Op = KindFile, "open"
		r.Path = absPath(arg(0), arg(1))
		f, _ := Field(arg(2), "flags")
		r.setOpenFlags(f)
	case "access":
		r.Kind, r.Op, r.Path = KindFile, "access", absPath("", arg(0))
	case "faccessat", "faccessat2":
		r.Kind, r.Op, r.Path = KindFile, "access", absPath(arg(0), arg(1))
	case "readlink":
		r.Kind, r.Op, r.Path = KindFile, "readlink", absPath("", arg(0))
	case "readlinkat":
		r.Kind, r.Op, r.Path = KindFile, "readlink", absPath(arg(0), arg(1))
	case "unlink":
		r.Kind, r.Op, r.Path = KindFile, "unlink", absPath("", arg(0))
	case "rmdir":
		r.Kind, r.Op, r.Path = KindFile, "rmdir", absPath("", arg(0))
	case "unlinkat":
		r.Kind, r.Op, r.Path = KindFile, "unlink", absPath(arg(0), arg(1))
		if strings.Contains(arg(2), "AT_REMOVEDIR") {
			r.Op = "rmdir"
		}
	case "mkdir":
		r.Kind, r.Op, r.Path = KindFile, "mkdir", absPath("", arg(0))
	case "mkdirat":
		r.Kind, r.Op, r.Path = KindFile, "mkdir", absPath(arg(0), arg(1))
	case "rename":
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "rename", absPath("", arg(0)), absPath("", arg(1))
	case "renameat", "renameat2":
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "rename", absPath(arg(0), arg(1)), absPath(arg(2), arg(3))
	case "link":
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "link", absPath("", arg(0)), absPath("", arg(1))
	case "linkat":
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "link", absPath(arg(0), arg(1)), absPath(arg(2), arg(3))
	case "symlink":
		// symlink(target, linkpath): Path is the link, Path2 what it points to.
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "symlink", absPath("", arg(1)), UnquoteString(arg(0))
	case "symlinkat":
		r.Kind, r.Op, r.Path, r.Path2 = KindFile, "symlink", absPath(arg(1), arg(2)), UnquoteString(arg(0))
	case "chmod", "fchmodat", "fchmodat2":
		r.Kind, r.Op = KindFile, "chmod"
		if ev.Name == "chmod" {
			r.Path = absPath("", arg(0))
		} else {
			r.Path = absPath(arg(0), arg(1))
		}
	case "truncate":
		r.Kind, r.Op, r.Path = KindFile, "truncate", absPath("", arg(0))
	case "chdir":
		r.Kind, r.Op, r.Path = KindFile, "chdir", absPath("", arg(0))
	case "utimensat", "utime", "utimes", "futimesat":
		r.Kind, r.Op = KindFile, "utime"
		if ev.Name == "utimensat" || ev.Name == "futimesat" {
			r.Path = absPath(arg(0), arg(1))
		} else {
			r.Path = absPath("", arg(0))
		}
	case "mount":
		r.Kind, r.Op, r.Path = KindAlert, "mount", absPath("", arg(1))
		r.Description = "mount " + UnquoteString(arg(0)) + " on " + r.Path
	case "execve":
		r.Kind, r.Op, r.Path = KindExec, "exec", absPath("", arg(0))
		r.Argv, r.ArgvTrunc = stringArray(arg(1))
	case "execveat":
		r.Kind, r.Op, r.Path = KindExec, "exec", absPath(arg(0), arg(1))
		r.Argv, r.ArgvTrunc = stringArray(arg(2))
	case "socket":
		r.Kind, r.Op = KindSocket, "socket"
		r.SockFamily = strings.TrimSpace(arg(0))
		r.SockType = strings.Split(strings.TrimSpace(arg(1)), "|")[0]
	case "connect", "bind":
		r.Kind, r.Op = KindNet, ev.Name
		r.Addr = ParseSockAddr(arg(1))
		r.SockType = socketTypeFromFD(arg(0))
	case "listen":
		r.Kind, r.Op = KindNet, "listen"
		r.SockType = socketTypeFromFD(arg(0))
	case "accept", "accept4":
		r.Kind, r.Op = KindNet, "accept"
	case "sendto":
		r.Kind, r.Op = KindNet, "send"
		r.SockType = socketTypeFromFD(arg(0))
		if b, t, ok := Unquote(arg(1)); ok {
			r.Data, r.DataTrunc = [][]byte{b}, t
		}
		r.Addr = ParseSockAddr(arg(4))
	case "sendmsg":
		r.Kind, r.Op = KindNet, "send"
		r.SockType = socketTypeFromFD(arg(0))
		r.parseMsghdr(arg(1))
	case "sendmmsg":
		r.Kind, r.Op = KindNet, "send"
		r.SockType = socketTypeFromFD(arg(0))
		for _, m := range Elements(arg(1)) {
			if hdr, ok := Field(m, "msg_hdr"); ok {
				r.parseMsghdr(hdr)
			}
		}
	case "clone", "clone3":
		r.Kind, r.Op = KindProcess, "clone"
		src := arg(0)
		if ev.Name == "clone" {
			for _, x := range a {
				if v, ok := strings.CutPrefix(x, "flags="); ok {
					src = v
				}
			}
			r.CloneFlags = Flags(src)
		} else if f, ok := Field(arg(0), "flags"); ok {
			r.CloneFlags = Flags(f)
		}
		if ev.RetKnown && ev.RetVal > 0 {
			r.Child = int(ev.RetVal)
		}
	case "fork", "vfork":
		r.Kind, r.Op = KindProcess, "fork"
		if ev.RetKnown && ev.RetVal > 0 {
			r.Child = int(ev.RetVal)
		}
	case "kill", "tgkill", "tkill":
		r.Kind, r.Op = KindProcess, "kill"
		r.SignalPID, _ = strconv.Atoi(strings.TrimSpace(arg(0)))
		if len(a) > 0 {
			r.Signal = strings.TrimSpace(a[len(a)-1])
		}
	case "exit_group", "exit":
		r.Kind, r.Op = KindProcess, "exit"
	default:
		if alertSyscalls[ev.Name] {
			r.Kind = KindAlert
			r.Description = ev.Name
			if ev.Name == "unshare" || ev.Name == "setns" {
				r.Description += " " + strings.Join(a, ", ")
			}
		}
	}
	return r
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
		}
	}
}

// parseMsghdr extracts the destination and payload of a struct msghdr.
func (r *Record) parseMsghdr(hdr string) {
	if name, ok := Field(hdr, "msg_name"); ok && r.Addr == nil {
		r.Addr = ParseSockAddr(name)
	}
	iov, _ := Field(hdr, "msg_iov")
	for _, el := range Elements(iov) {
		if base, ok := Field(el, "iov_base"); ok {
			if b, t, ok := Unquote(base); ok {
				r.Data = append(r.Data, b)
				r.DataTrunc = r.DataTrunc || t
			}
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
		return path.Clean(name)
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

// stringArray decodes ["a", "b", ...] and reports truncation.
func stringArray(arg string) ([]string, bool) {
	var out []string
	trunc := false
	for _, el := range Elements(arg) {
		if el == "..." {
			trunc = true
			continue
		}
		b, t, ok := Unquote(el)
		if !ok {
			continue
		}
		trunc = trunc || t
		out = append(out, string(b))
	}
	return out, trunc
}

// socketTypeFromFD reads the -yy annotation of a socket fd: 18<TCP:[…]>,
// 18<UDP:[…]>, 18<UNIX-STREAM:[…]>, 18<socket:[1234]> (unconnected).
func socketTypeFromFD(arg string) string {
	ann, ok := Annotation(arg)
	if !ok {
		return ""
	}
	proto, _, _ := strings.Cut(ann, ":")
	switch {
	case proto == "TCP" || proto == "TCPv6":
		return "tcp"
	case proto == "UDP" || proto == "UDPv6":
		return "udp"
	case strings.HasPrefix(proto, "UNIX"):
		return "unix"
	case proto == "NETLINK":
		return "netlink"
	}
	return ""
}

var (
	// {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.10")}
	reInet = regexp.MustCompile(`inet_addr\("([0-9.]+)"\)`)
	// inet_pton(AF_INET6, "2001:db8::1", &sin6_addr)
	reInet6 = regexp.MustCompile(`inet_pton\(AF_INET6,\s*"([0-9a-fA-F:.]+)"`)
	// sin_port=htons(53) or sin6_port=htons(80)
	rePort = regexp.MustCompile(`port=htons\((\d+)\)`)
)

// ParseSockAddr decodes a sockaddr struct argument; nil if it is not one.
func ParseSockAddr(arg string) *SockAddr {
	arg = strings.TrimSpace(arg)
	if !strings.HasPrefix(arg, "{") {
		return nil
	}
	fam, ok := Field(arg, "sa_family")
	if !ok {
		return nil
	}
	sa := &SockAddr{Family: fam}
	switch fam {
	case "AF_INET":
		if m := reInet.FindStringSubmatch(arg); m != nil {
			sa.IP = m[1]
		}
	case "AF_INET6":
		if m := reInet6.FindStringSubmatch(arg); m != nil {
			sa.IP = m[1]
		}
	case "AF_UNIX":
		if p, ok := Field(arg, "sun_path"); ok {
			b, _, _ := Unquote(p)
			if strings.HasPrefix(p, "@") {
				sa.Path = "@" + string(b)
			} else {
				sa.Path = string(b)
			}
		}
	}
	if m := rePort.FindStringSubmatch(arg); m != nil {
		sa.Port, _ = strconv.Atoi(m[1])
	}
	return sa
}

// UntracedClone reports whether a clone asked the kernel not to let the
// child be traced.
func (r *Record) UntracedClone() bool {
	return slices.Contains(r.CloneFlags, "CLONE_UNTRACED")
}
