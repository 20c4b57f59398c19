package sandbox

import (
	_ "embed"
	"io"
	"time"
)

//go:embed entry.sh
var entryScript []byte

// watchScript is the witness run's outside observer (inotify on the decoy
// files and the bin directories), run by entry.sh as root when
// Spec.Watch is set.
//
//go:embed watch.py
var watchScript []byte

// Paths inside the sandbox. None names the audit: /proc/1/cmdline (world
// readable) shows a node image's usual entrypoint, which only root may
// read; the seed archive, the resolver file and every result sit in a
// root-only directory whose name systemd uses for the same purpose.
const (
	entryPath   = "/usr/local/bin/docker-entrypoint.sh"
	outDir      = "/var/lib/private"
	homeTarPath = outDir + "/home.tar"
	resolvPath  = outDir + "/resolv.conf"
	tracePath   = outDir + "/trace"
	watchPath   = outDir + "/watch.py"
)

// Bounds of the copy-out of files changed under Spec.ScanDir.
const (
	WrittenMaxFiles = 64
	WrittenMaxBytes = 256 << 10
)

// Label keys put on everything mcp-audit creates.
const (
	LabelApp      = "mcp-audit"
	LabelOwner    = "mcp-audit.owner"
	LabelDeadline = "mcp-audit.deadline"
)

// TraceSet is the syscall set traced by default: file access and changes,
// process creation and signals, sockets, and the calls that indicate an
// escape or anti-analysis attempt. The stat family is left out on purpose:
// node makes ~1,500 statx calls at startup and tracing them costs 2.4-2.6x.
var TraceSet = []string{
	"open", "openat", "openat2", "creat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir",
	"mkdir", "mkdirat", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "truncate",
	"readlink", "readlinkat", "access", "faccessat", "faccessat2", "chdir", "mount", "utimensat",
	"clone", "clone3", "fork", "vfork", "execve", "execveat", "exit_group", "kill", "tgkill",
	"socket", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "memfd_create", "bpf",
	"unshare", "setns", "process_vm_readv", "process_vm_writev", "seccomp",
}

// Limits bound what a server may consume.
type Limits struct {
	MemoryBytes int64
	PIDs        int64
	NanoCPUs    int64
	TmpfsBytes  int64         // per tmpfs mount (HOME, /tmp)
	FileBytes   int64         // RLIMIT_FSIZE for every process
	Deadline    time.Duration // the container ends itself after this, even if mcp-audit died
}

// DefaultLimits are used for zero fields.
var DefaultLimits = Limits{
	MemoryBytes: 2 << 30,
	PIDs:        512,
	NanoCPUs:    2e9,
	TmpfsBytes:  256 << 20,
	FileBytes:   1 << 30,
	Deadline:    15 * time.Minute,
}

// Spec describes one sandboxed run.
type Spec struct {
	Image   string
	User    string // unprivileged user the server runs as
	UID     int
	Home    string
	Workdir string
	Cmd     []string // the server command
	Env     []string // the server's environment (canaries included)
	// HomeFiles are seeded into Home as the user; paths are relative.
	HomeFiles []TarFile
	// Files and Trees are copied as root before the container starts.
	Files []TarFile
	Trees []Tree
	// CanaryFiles are absolute paths whose access times are recorded after
	// the run.
	CanaryFiles []string
	// ScanDir, when set, is a directory whose regular files changed after
	// seeding are copied out after the run (bounded: WrittenMaxFiles of
	// at most WrittenMaxBytes each), to be searched for canary values.
	ScanDir string
	Resolv  string
	StrSize int
	// Net is the network mode; zero means none.
	Net    Network
	Limits Limits
	// NoTrace runs the server without strace. Only the benchmark uses it,
	// to measure the tracer's cost in an otherwise identical sandbox.
	NoTrace bool
	// Watch runs the outside observer (watch.py) for the server's
	// lifetime: programs opened in the bin directories and, with NoTrace,
	// decoy opens and reads (Artifacts.Watch). The traced run of a
	// witnessed audit has it too, so the programs both runs opened are
	// compared like with like.
	Watch bool
	// Hostname is the host name the server sees (default Hostname);
	// MachineID, when set, is written to /etc/machine-id before it starts;
	// Prelaunches starts the server that many times first, its input
	// closed, over the same home and /tmp, so a count kept there has grown
	// when the real session starts (launch history).
	Hostname    string
	MachineID   string
	Prelaunches int
	// ClockAhead moves the server's clock this many years ahead when the
	// clock shim switches to its rate (the idle phase): a release that
	// turns hostile at a date meets one.
	ClockAhead int
	// ClockShift starts the server's clock this many seconds ahead of real
	// time (with the clock shim: ClockRate above 1), until the idle phase
	// moves it ClockAhead years ahead. The calibration run's clock starts
	// seconds from the primary's, so a field that follows the time to the
	// second never agrees between the runs with the same secrets by their
	// starting in the same second.
	ClockShift int
	// CoverageDir, when set, is made for the server's user before it
	// starts, and the regular files node leaves in it (V8 coverage, when
	// the server's environment sets NODE_V8_COVERAGE to it) are read back
	// after the run (Artifacts.Coverage), bounded.
	CoverageDir string
	// ClockRate, above 1, lets the server's clocks and waits run that
	// many times faster than real time (the clock shim, libfaketime) once
	// Run.FastClock is called; until then they run in real time. The
	// entrypoint notes "clock RATE" or "clock-unavailable" in the status,
	// and "clock-fast TIME" when the fast phase began.
	ClockRate int
	// Install, when set, runs lifecycle scripts under the tracer before the
	// server starts (phase "install").
	Install *Install
	// Stderr, when set, also receives everything the server writes on its
	// standard error (the Run keeps only a tail): for scanning it whole.
	// It must not block.
	Stderr io.Writer
	// HTTP, when set, is where the server listens for Streamable HTTP
	// (see Run.DialServer); nil means stdio.
	HTTP *HTTPEndpoint
	// Tools, when set, is where entry.sh finds its own programs (an OCI
	// image brings none: see oci.go); the server keeps its PATH.
	Tools string
	// Writable, when set, is the package copied where the server may
	// change it (see Writable); the home's tmpfs grows by its size.
	Writable *Writable
	// Playwright are the browser builds linked under PlaywrightBrowsers
	// (see BrowserFor).
	Playwright []string
}

// HTTPEndpoint is a server's Streamable HTTP endpoint inside the sandbox.
type HTTPEndpoint struct {
	Port int
	Path string
}

// Install describes the install phase: a shell script run in Dir as the
// server's user with the build group, which may write the package tree.
type Install struct {
	Dir     string
	Script  string
	GID     int
	Timeout time.Duration
}

// InstallMarker starts every install script, so its shell is recognizable
// as mcp-audit's own plumbing.
const InstallMarker = "# mcp-audit install phase"

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MemoryBytes > 0 {
		d.MemoryBytes = l.MemoryBytes
	}
	if l.PIDs > 0 {
		d.PIDs = l.PIDs
	}
	if l.NanoCPUs > 0 {
		d.NanoCPUs = l.NanoCPUs
	}
	if l.TmpfsBytes > 0 {
		d.TmpfsBytes = l.TmpfsBytes
	}
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	if l.Deadline > 0 {
		d.Deadline = l.Deadline
	}
	return d
}

// ClockNoticeMax is how long after Run.FastClock the server's libfaketime
// may keep the old rate. entry.sh sets FAKETIME_CACHE_DURATION=0: the rate
// file is read again once the whole second of real time has changed since
// the last read (within a second, 0.99 s the most of 20 measured; with the
// cache at 1 s, the first design, up to two seconds), not on every call.
const ClockNoticeMax = time.Second

// MaxClockShift bounds Spec.ClockShift: 60 days, well inside the sink's
// certificates (valid from an hour before they are made).
const MaxClockShift = 60 * 24 * 3600
