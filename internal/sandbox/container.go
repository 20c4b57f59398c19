package sandbox

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

//go:embed entry.sh
var entryScript []byte

// Paths inside the sandbox.
const (
	entryPath   = "/opt/mcp-audit/entry.sh"
	homeTarPath = "/opt/mcp-audit/home.tar"
	resolvPath  = "/opt/mcp-audit/resolv.conf"
	outDir      = "/var/lib/mcp-audit"
	tracePath   = outDir + "/trace"
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
	"unshare", "setns", "process_vm_readv", "process_vm_writev",
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
	Resolv      string
	StrSize     int
	// Net is the network mode; zero means none.
	Net    Network
	Limits Limits
	// NoTrace runs the server without strace. Only the benchmark uses it,
	// to measure the tracer's cost in an otherwise identical sandbox.
	NoTrace bool
	// Install, when set, runs lifecycle scripts under the tracer before the
	// server starts (phase "install").
	Install *Install
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

// Sandbox creates runs on an engine.
type Sandbox struct {
	Engine Engine
	Log    *slog.Logger
}

// Run is a started sandbox container.
type Run struct {
	sb      *Sandbox
	ID      string
	Started time.Time
	// Stdout is the server's standard output.
	Stdout io.Reader
	stdin  interface {
		io.Writer
		CloseWrite() error
	}
	hijack  *client.HijackedResponse
	stderr  *Tail
	done    chan struct{}
	waitErr error
	once    sync.Once
	sink    *sinkRun
	// Forced is set when the entrypoint did not end the run on request and
	// the engine had to kill the container.
	Forced bool
}

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

func (s *Sandbox) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Start creates the container, copies everything in, attaches to its
// standard streams and starts it. On error nothing is left behind.
func (s *Sandbox) Start(ctx context.Context, spec Spec) (_ *Run, err error) {
	lim := spec.Limits.withDefaults()
	profile, err := SeccompProfile()
	if err != nil {
		return nil, err
	}
	strsize := spec.StrSize
	if strsize <= 0 {
		strsize = 4096
	}
	var canaryList []string
	for _, c := range spec.CanaryFiles {
		if !strings.ContainsAny(c, " \t\n") {
			canaryList = append(canaryList, c)
		}
	}
	env := append([]string{
		"MCP_AUDIT_USER=" + spec.User,
		"MCP_AUDIT_UID=" + strconv.Itoa(spec.UID),
		"MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
		"MCP_AUDIT_STRSIZE=" + strconv.Itoa(strsize),
		"MCP_AUDIT_WORKDIR=" + spec.Workdir,
		"MCP_AUDIT_WATCHDOG=" + strconv.Itoa(int(lim.Deadline.Seconds())),
		"MCP_AUDIT_CANARY_FILES=" + strings.Join(canaryList, " "),
	}, spec.Env...)
	if spec.NoTrace {
		env = append(env, "MCP_AUDIT_NOTRACE=1")
	}
	if in := spec.Install; in != nil {
		env = append(env, "MCP_AUDIT_INSTALL_DIR="+in.Dir, "MCP_AUDIT_INSTALL_SCRIPT="+InstallMarker+"\n"+in.Script,
			"MCP_AUDIT_INSTALL_GID="+strconv.Itoa(in.GID), "MCP_AUDIT_INSTALL_TIMEOUT="+strconv.Itoa(int(max(in.Timeout, time.Second).Seconds())))
	}
	pids := lim.PIDs
	tmpfs := func(extra string) string {
		return fmt.Sprintf("rw,nosuid,nodev,size=%d%s", lim.TmpfsBytes, extra)
	}
	mode := orDefault(spec.Net.Mode, NetNone)
	netMode := "none"
	var sr *sinkRun
	switch mode {
	case NetNone:
	case NetSinkhole, NetOpen:
		if sr, err = s.createSink(ctx, spec); err != nil {
			return nil, err
		}
		netMode = "container:" + sr.id
		// Start the sink while the server container is prepared.
		go s.startSink(ctx, sr)
		trust := spec.Net.CACert
		if mode == NetOpen {
			trust = spec.Net.TrustPEM
		}
		if len(trust) > 0 {
			spec.Files = append(spec.Files, TarFile{Path: serverCA, Content: trust, Mode: 0o644})
			env = append(env, "NODE_EXTRA_CA_CERTS="+serverCA, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
				"REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt", "CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
				"GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt")
		}
	default:
		return nil, fmt.Errorf("unknown network mode %q", mode)
	}
	defer func() {
		if err != nil && sr != nil {
			s.removeID(sr.id)
		}
	}()
	host, _ := os.Hostname()
	createStart := time.Now()
	created, err := s.Engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image:        spec.Image,
			Cmd:          append([]string{"/bin/sh", entryPath}, spec.Cmd...),
			Env:          env,
			User:         "0:0",
			WorkingDir:   "/",
			OpenStdin:    true,
			StdinOnce:    true,
			AttachStdin:  true,
			AttachStdout: true,
			AttachStderr: true,
			Labels: map[string]string{
				LabelApp:      "1",
				LabelOwner:    fmt.Sprintf("%s:%d", host, os.Getpid()),
				LabelDeadline: strconv.FormatInt(time.Now().Add(lim.Deadline+time.Minute).Unix(), 10),
			},
		},
		HostConfig: &container.HostConfig{
			NetworkMode: container.NetworkMode(netMode),
			CapDrop:     []string{"ALL"},
			// The tracer needs SYS_PTRACE; strace -u needs SETUID/SETGID;
			// DAC_READ_SEARCH lets it resolve the server's fds for -yy.
			// The server itself runs as an unprivileged user and gets none.
			CapAdd:      []string{"SYS_PTRACE", "SETUID", "SETGID", "DAC_READ_SEARCH"},
			SecurityOpt: []string{"no-new-privileges", "seccomp=" + profile},
			LogConfig:   container.LogConfig{Type: "none"},
			Tmpfs: map[string]string{
				spec.Home:   tmpfs(fmt.Sprintf(",uid=%d,gid=%d,mode=0755", spec.UID, spec.UID)),
				"/tmp":      tmpfs(",mode=1777"),
				"/var/tmp":  tmpfs(",mode=1777"),
				"/run/lock": fmt.Sprintf("rw,nosuid,nodev,noexec,size=%d,mode=1777", 1<<20),
			},
			Resources: container.Resources{
				Memory:     lim.MemoryBytes,
				MemorySwap: lim.MemoryBytes,
				PidsLimit:  &pids,
				NanoCPUs:   lim.NanoCPUs,
				Ulimits: []*container.Ulimit{
					{Name: "fsize", Soft: lim.FileBytes, Hard: lim.FileBytes},
					{Name: "nofile", Soft: 4096, Hard: 4096},
					{Name: "core", Soft: 0, Hard: 0},
				},
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating sandbox container: %w", err)
	}
	s.log().Debug("container created", "ms", time.Since(createStart).Milliseconds())
	r := &Run{sb: s, ID: created.ID, stderr: NewTail(64 << 10), done: make(chan struct{}), sink: sr}
	defer func() {
		if err != nil {
			r.Remove()
		}
	}()
	t0 := time.Now()
	if err := s.copyIn(ctx, r.ID, spec); err != nil {
		return nil, err
	}
	s.log().Debug("copied files in", "ms", time.Since(t0).Milliseconds())
	att, err := s.Engine.ContainerAttach(ctx, r.ID, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, fmt.Errorf("attaching to sandbox: %w", err)
	}
	r.hijack = &att.HijackedResponse
	r.stdin = hijackWriter{&att.HijackedResponse}
	pr, pw := io.Pipe()
	r.Stdout = pr
	go func() {
		_, err := stdcopy.StdCopy(pw, r.stderr, att.Reader)
		pw.CloseWithError(err)
	}()
	if sr != nil {
		select {
		case err = <-sr.ready:
		case <-time.After(30 * time.Second):
			err = errors.New("the sink did not become ready in 30s")
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("starting network sink: %w", err)
		}
	}
	wait := s.Engine.ContainerWait(context.WithoutCancel(ctx), r.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	r.Started = time.Now()
	if _, err := s.Engine.ContainerStart(ctx, r.ID, client.ContainerStartOptions{}); err != nil {
		return nil, fmt.Errorf("starting sandbox: %w", err)
	}
	s.log().Debug("container start returned", "ms", time.Since(r.Started).Milliseconds())
	go func() {
		select {
		case <-wait.Result:
		case err := <-wait.Error:
			r.waitErr = err
		}
		close(r.done)
	}()
	s.log().Debug("sandbox started", "container", shortID(r.ID))
	return r, nil
}

type hijackWriter struct{ h *client.HijackedResponse }

func (w hijackWriter) Write(p []byte) (int, error) { return w.h.Conn.Write(p) }
func (w hijackWriter) CloseWrite() error           { return w.h.CloseWrite() }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Write sends bytes to the server's standard input.
func (r *Run) Write(p []byte) (int, error) { return r.stdin.Write(p) }

// CloseStdin signals end of input to the server.
func (r *Run) CloseStdin() error { return r.stdin.CloseWrite() }

// Done is closed when the container has exited.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stderr returns the sanitized tail of the server's standard error.
func (r *Run) Stderr() string { return r.stderr.String() }

// TraceSize returns the current size of the trace file, for idle detection.
func (r *Run) TraceSize(ctx context.Context) (int64, error) {
	st, err := r.sb.Engine.ContainerStatPath(ctx, r.ID, client.ContainerStatPathOptions{Path: tracePath})
	if err != nil {
		return 0, err
	}
	return st.Stat.Size, nil
}

// Stop ends the run: it closes the server's stdin, gives it grace to exit
// on its own, then asks the entrypoint to kill every process of the server
// user, and finally kills the container. It returns once the container
// has exited.
func (r *Run) Stop(ctx context.Context, grace time.Duration) error {
	t0 := time.Now()
	_ = r.CloseStdin()
	if r.waitDone(ctx, grace) {
		r.sb.log().Debug("server exited after stdin closed", "ms", time.Since(t0).Milliseconds())
		return nil
	}
	_, _ = r.sb.Engine.ContainerKill(context.WithoutCancel(ctx), r.ID, client.ContainerKillOptions{Signal: "TERM"})
	if r.waitDone(ctx, 10*time.Second) {
		r.sb.log().Debug("server stopped by the entrypoint", "ms", time.Since(t0).Milliseconds())
		return nil
	}
	r.Forced = true
	_, _ = r.sb.Engine.ContainerKill(context.WithoutCancel(ctx), r.ID, client.ContainerKillOptions{Signal: "KILL"})
	if r.waitDone(context.WithoutCancel(ctx), 10*time.Second) {
		return nil
	}
	return errors.New("sandbox container did not stop")
}

func (r *Run) waitDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.done:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// State is how the container ended.
type State struct {
	OOMKilled bool
	ExitCode  int
}

// State inspects the exited container.
func (r *Run) State(ctx context.Context) (State, error) {
	res, err := r.sb.Engine.ContainerInspect(ctx, r.ID, client.ContainerInspectOptions{})
	if err != nil {
		return State{}, fmt.Errorf("inspecting sandbox: %w", err)
	}
	st := State{}
	if s := res.Container.State; s != nil {
		st.OOMKilled, st.ExitCode = s.OOMKilled, s.ExitCode
	}
	return st, nil
}

// Remove deletes the container. It uses its own short context so that it
// still works after the caller's context was cancelled (Ctrl-C).
func (r *Run) Remove() {
	r.once.Do(func() {
		if r.hijack != nil {
			r.hijack.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := r.sb.Engine.ContainerRemove(ctx, r.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !isNotFound(err) {
			r.sb.log().Warn("removing sandbox container", "container", shortID(r.ID), "err", err)
		}
		if r.sink != nil {
			if r.sink.hijack != nil {
				r.sink.hijack.Close()
			}
			r.sb.removeID(r.sink.id)
		}
	})
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	if cerrdefs.IsNotFound(err) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "no such") || strings.Contains(msg, "not found")
}
