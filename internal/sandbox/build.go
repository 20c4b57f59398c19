package sandbox

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// The builders below turn a Spec into what the engine is asked for. They do
// no I/O, so the sandbox's hardening is checked by table tests without an
// engine.

// createOptions is the server container for spec on the given network,
// confined by the seccomp profile (JSON) and marked with labels for GC.
func createOptions(spec Spec, network container.NetworkMode, seccomp string, labels map[string]string) client.ContainerCreateOptions {
	lim := spec.Limits.withDefaults()
	cfg := containerConfig(spec, lim, labels)
	if !network.IsContainer() {
		// Behind a sink the server has the sink's hostname (the engine
		// refuses one for a container that joins another's network).
		cfg.Hostname = cmp.Or(spec.Hostname, Hostname)
	}
	return client.ContainerCreateOptions{Config: cfg, HostConfig: hostConfig(spec, lim, network, seccomp)}
}

// Hostname is the sandbox's host name: a workstation's, not the engine's
// default (the container id's first twelve hex digits, a container tell).
const Hostname = "dev-workstation"

// containerConfig runs entry.sh as root with the server command as its
// arguments: the entrypoint needs root to start the tracer and then drops
// to spec.User. Stdin stays open because it carries the MCP session.
func containerConfig(spec Spec, lim Limits, labels map[string]string) *container.Config {
	cfg := &container.Config{
		Image:        spec.Image,
		Cmd:          append([]string{entryShell(spec), entryPath}, spec.Cmd...),
		Env:          entryEnv(spec, lim),
		User:         "0:0",
		WorkingDir:   "/",
		OpenStdin:    true,
		StdinOnce:    true,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		Labels:       labels,
	}
	if spec.Tools != "" {
		// An audited image's own ENTRYPOINT would run with ours as its
		// arguments: replace it (the server command is in spec.Cmd).
		cfg.Entrypoint, cfg.Cmd = cfg.Cmd[:2], cfg.Cmd[2:]
	}
	return cfg
}

// entryEnv is the container's environment: the MCP_AUDIT_* settings entry.sh
// reads (and unsets before the server runs), the server's own environment,
// then the variables that make common runtimes trust the run's CA.
func entryEnv(spec Spec, lim Limits) []string {
	strsize := spec.StrSize
	if strsize <= 0 {
		strsize = 4096
	}
	env := append([]string{
		"MCP_AUDIT_USER=" + spec.User,
		"MCP_AUDIT_UID=" + strconv.Itoa(spec.UID),
		"MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
		"MCP_AUDIT_STRSIZE=" + strconv.Itoa(strsize),
		"MCP_AUDIT_WORKDIR=" + spec.Workdir,
		"MCP_AUDIT_WATCHDOG=" + strconv.Itoa(int(lim.Deadline.Seconds())),
		"MCP_AUDIT_CANARY_FILES=" + canaryList(spec.CanaryFiles),
		"MCP_AUDIT_SCAN_DIR=" + spec.ScanDir,
		"MCP_AUDIT_SCAN_LIMITS=" + strconv.Itoa(WrittenMaxFiles) + " " + strconv.Itoa(WrittenMaxBytes/1024),
	}, spec.Env...)
	if spec.CoverageDir != "" {
		env = append(env, "MCP_AUDIT_COVERAGE_DIR="+spec.CoverageDir)
	}
	if spec.MachineID != "" {
		env = append(env, "MCP_AUDIT_MACHINE_ID="+spec.MachineID)
	}
	if spec.ClockAhead > 0 && spec.ClockRate > 1 {
		env = append(env, "MCP_AUDIT_CLOCK_AHEAD="+strconv.Itoa(min(spec.ClockAhead, 8)))
	}
	if spec.ClockShift > 0 && spec.ClockRate > 1 {
		env = append(env, "MCP_AUDIT_CLOCK_SHIFT="+strconv.Itoa(min(spec.ClockShift, MaxClockShift)))
	}
	if spec.Prelaunches > 0 {
		env = append(env, "MCP_AUDIT_PRELAUNCHES="+strconv.Itoa(min(spec.Prelaunches, 5)))
	}
	if spec.NoTrace {
		env = append(env, "MCP_AUDIT_NOTRACE=1")
	}
	if spec.ClockRate > 1 {
		env = append(env, "MCP_AUDIT_CLOCK_RATE="+strconv.Itoa(spec.ClockRate))
	}
	if spec.Tools != "" {
		env = append(env, "MCP_AUDIT_TOOLS="+spec.Tools)
	}
	if w := spec.Writable; w != nil {
		env = append(env, "MCP_AUDIT_WRITABLE_SRC="+w.Src, "MCP_AUDIT_WRITABLE_DST="+w.Dst)
	}
	if len(spec.Playwright) > 0 {
		env = append(env, "MCP_AUDIT_PLAYWRIGHT="+strings.Join(spec.Playwright, " "))
	}
	if in := spec.Install; in != nil {
		env = append(env, "MCP_AUDIT_INSTALL_DIR="+in.Dir, "MCP_AUDIT_INSTALL_SCRIPT="+InstallMarker+"\n"+in.Script,
			"MCP_AUDIT_INSTALL_GID="+strconv.Itoa(in.GID), "MCP_AUDIT_INSTALL_TIMEOUT="+strconv.Itoa(int(max(in.Timeout, time.Second).Seconds())))
	}
	return append(env, trustEnv(spec.Net)...)
}

// canaryList joins the canary paths with spaces for entry.sh; a path that
// contains whitespace would be split there, so it is left out.
func canaryList(paths []string) string {
	var keep []string
	for _, p := range paths {
		if !strings.ContainsAny(p, " \t\n") {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " ")
}

// hostConfig is the server container's confinement. Nothing is bind-mounted:
// files go in through the archive endpoint (see the package comment).
func hostConfig(spec Spec, lim Limits, network container.NetworkMode, seccomp string) *container.HostConfig {
	return &container.HostConfig{
		NetworkMode: network,
		CapDrop:     []string{"ALL"},
		// The tracer needs SYS_PTRACE; strace -u needs SETUID/SETGID;
		// DAC_READ_SEARCH lets it resolve the server's fds for -yy.
		// The server itself runs as an unprivileged user and gets none.
		CapAdd:      []string{"SYS_PTRACE", "SETUID", "SETGID", "DAC_READ_SEARCH"},
		SecurityOpt: []string{"no-new-privileges", "seccomp=" + seccomp},
		// Output is read from the attach stream; a log driver would only keep
		// a second, unbounded copy of it on the engine's disk.
		LogConfig: container.LogConfig{Type: "none"},
		Tmpfs:     tmpfsMounts(spec.Home, spec.UID, lim.TmpfsBytes, writableBytes(spec)),
		Resources: resources(lim),
	}
}

// tmpfsMounts makes HOME and the temporary directories size-bounded tmpfs,
// so the server's writes count against a limit and vanish with the run.
// HOME belongs to the server's user, who must be able to write it; it also
// holds the writable package copy (extra bytes). The engine mounts a tmpfs
// noexec unless told otherwise: HOME and the temporary directories are
// exec, as on a workstation, so a helper program a package ships (in the
// package copy under HOME) or drops in /tmp runs and is seen running, not
// refused by the sandbox alone.
func tmpfsMounts(home string, uid int, size, extra int64) map[string]string {
	opts := func(extra string) string {
		return fmt.Sprintf("rw,exec,nosuid,nodev,size=%d%s", size, extra)
	}
	return map[string]string{
		home:        fmt.Sprintf("rw,exec,nosuid,nodev,size=%d,uid=%d,gid=%d,mode=0755", size+extra, uid, uid),
		"/tmp":      opts(",mode=1777"),
		"/var/tmp":  opts(",mode=1777"),
		"/run/lock": fmt.Sprintf("rw,nosuid,nodev,noexec,size=%d,mode=1777", 1<<20),
	}
}

func writableBytes(spec Spec) int64 {
	if spec.Writable == nil {
		return 0
	}
	return spec.Writable.Bytes
}

// resources applies lim. Swap equals memory so the limit cannot be
// stretched by swapping; core dumps are off because they would write the
// server's memory (canaries included) to disk.
func resources(lim Limits) container.Resources {
	pids := lim.PIDs
	return container.Resources{
		Memory:     lim.MemoryBytes,
		MemorySwap: lim.MemoryBytes,
		PidsLimit:  &pids,
		NanoCPUs:   lim.NanoCPUs,
		Ulimits: []*container.Ulimit{
			{Name: "fsize", Soft: lim.FileBytes, Hard: lim.FileBytes},
			{Name: "nofile", Soft: 4096, Hard: 4096},
			{Name: "core", Soft: 0, Hard: 0},
		},
	}
}

// needsSink reports whether a network mode puts the server behind a sink
// container. Unknown modes are refused here, before anything is created.
func needsSink(mode string) (bool, error) {
	switch cmp.Or(mode, NetNone) {
	case NetNone:
		return false, nil
	case NetSinkhole, NetOpen:
		return true, nil
	}
	return false, fmt.Errorf("unknown network mode %q", mode)
}

// networkFor is the server's network: none without a sink, otherwise the
// sink's network namespace, so that all traffic passes through the sink.
func networkFor(sinkID string) container.NetworkMode {
	if sinkID == "" {
		return "none"
	}
	return container.NetworkMode("container:" + sinkID)
}

// trustPEM is what the server should trust on top of the system CAs: the
// interception CA in sinkhole mode, the host's extra CAs in open mode.
func trustPEM(n Network) []byte {
	switch n.Mode {
	case NetSinkhole:
		return n.CACert
	case NetOpen:
		return n.TrustPEM
	}
	return nil
}

// trustFiles is the CA file copied in with the server's files, if any.
func trustFiles(n Network) []TarFile {
	pem := trustPEM(n)
	if len(pem) == 0 {
		return nil
	}
	return []TarFile{{Path: serverCA, Content: pem, Mode: 0o644}}
}

// trustEnv points node, Python, curl and git at the CA: node adds
// NODE_EXTRA_CA_CERTS to its own store, the others read the system bundle,
// which the entrypoint extends with the CA file.
func trustEnv(n Network) []string {
	if len(trustPEM(n)) == 0 {
		return nil
	}
	const bundle = "/etc/ssl/certs/ca-certificates.crt"
	return []string{"NODE_EXTRA_CA_CERTS=" + serverCA, "SSL_CERT_FILE=" + bundle,
		"REQUESTS_CA_BUNDLE=" + bundle, "CURL_CA_BUNDLE=" + bundle, "GIT_SSL_CAINFO=" + bundle}
}

// ownerLabels mark a container as mcp-audit's, owned by this process, and
// collectable by GC once the deadline plus a minute has passed.
func ownerLabels(deadline time.Duration) map[string]string {
	host, _ := os.Hostname()
	return map[string]string{
		LabelApp:      "1",
		LabelOwner:    fmt.Sprintf("%s:%d", host, os.Getpid()),
		LabelDeadline: strconv.FormatInt(time.Now().Add(deadline+time.Minute).Unix(), 10),
	}
}

// entryShell runs entry.sh: the image's /bin/sh, or the bundled one.
func entryShell(spec Spec) string {
	if spec.Tools != "" {
		return spec.Tools + "/sh"
	}
	return "/bin/sh"
}
