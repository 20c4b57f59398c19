package clientconfig

import (
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// docker run's options (docker 20.10 to 28), by whether they take a value.
var dockerRunFlags = flagSet{
	value: set("-e", "--env", "--env-file", "-v", "--volume", "--mount", "--network", "--net", "--name", "-p", "--publish",
		"-w", "--workdir", "-u", "--user", "--entrypoint", "--add-host", "--cap-add", "--cap-drop", "--device", "--dns",
		"--dns-search", "--dns-option", "-l", "--label", "--label-file", "-m", "--memory", "--memory-swap",
		"--memory-reservation", "--cpus", "--cpu-shares", "-c", "--cpuset-cpus", "--cpuset-mems", "--pid", "--ipc",
		"--uts", "--userns", "--cgroupns", "--security-opt", "--platform", "--pull", "--restart", "-h", "--hostname",
		"--domainname", "--tmpfs", "--ulimit", "--log-driver", "--log-opt", "--gpus", "--runtime", "--shm-size",
		"--group-add", "--expose", "--link", "--mac-address", "--ip", "--ip6", "--stop-signal", "--stop-timeout",
		"--health-cmd", "--health-interval", "--health-retries", "--health-timeout", "--health-start-period", "-a",
		"--attach", "--cidfile", "--volumes-from", "--sysctl", "--storage-opt", "--device-cgroup-rule",
		"--oom-score-adj", "--isolation", "--annotation", "--pids-limit", "--blkio-weight", "--cgroup-parent",
		"--network-alias", "--volume-driver"),
	bool: set("-i", "--interactive", "-t", "--tty", "--rm", "-d", "--detach", "--privileged", "--init", "--read-only",
		"-P", "--publish-all", "--oom-kill-disable", "--no-healthcheck", "--sig-proxy", "--disable-content-trust",
		"-q", "--quiet", "--use-api-socket"),
	shortBundles: true,
}

var dockerGlobalFlags = flagSet{
	value: set("--context", "-c", "-H", "--host", "--config", "-l", "--log-level"),
	bool:  set("-D", "--debug", "--tls", "--tlsverify"),
}

// mapDocker: docker [GLOBAL] run [OPTIONS] IMAGE[:TAG|@DIGEST] ARGS…,
// also docker container run and podman run.
func mapDocker(prog string, args []string, _ int) mapped {
	gopts, rest, err := dockerGlobalFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	if len(rest) >= 2 && rest[0] == "container" && rest[1] == "run" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "run" {
		return unrecognised(prog, "only %s run is mapped", prog)
	}
	opts, rest, err := dockerRunFlags.scan(rest[1:])
	if err != nil {
		return unrecognised(prog+" run", "%v", err)
	}
	if len(rest) == 0 {
		return unrecognised(prog+" run", "no image is named")
	}
	s, err := target.ParseSpec(target.EcosystemNamed(KindOCI).Spec(rest[0]))
	if err != nil {
		return unrecognised(prog+" run", "%s is not an image reference", quoteName(rest[0]))
	}
	m := mapped{kind: KindOCI, pkg: s.Name, version: s.Range, args: rest[1:]}
	if s.Range == "" || s.Range == "latest" {
		m.warn(WarnUnpinned, "image %s has no tag or digest, or the tag latest: the client runs whatever the tag points to when it starts (write IMAGE@sha256:…)", s.Name)
	}
	if has(gopts, "--context", "-c", "-H", "--host") {
		m.warn(WarnNote, "the client runs the container on another engine (--context or --host)")
	}
	for _, o := range opts {
		dockerOption(&m, prog, o)
	}
	return m
}

// dockerOption records what one option means for the user.
func dockerOption(m *mapped, prog string, o option) {
	switch o.name {
	case "-e", "--env":
		name, value, hasValue := strings.Cut(o.value, "=")
		m.env = append(m.env, name)
		if hasValue {
			m.vars = append(m.vars, variable{name: name, value: value})
		}
	case "--env-file":
		m.warn(WarnNote, "the variables of %s --env-file are not read; name them in canary_env if the server needs them", prog)
	case "-v", "--volume":
		dockerVolume(m, o.value)
	case "--mount":
		dockerMount(m, o.value)
	case "--privileged":
		m.warn(WarnPrivileged, "%s run --privileged: the container has every capability and the host's devices", prog)
	case "--network", "--net", "--pid", "--ipc", "--uts", "--userns", "--cgroupns":
		if o.value == "host" {
			m.warn(WarnHostNamespace, "%s %s host: the container shares the host's %s", prog, o.name, namespaceWord(o.name))
		}
	case "--cap-add":
		m.warn(WarnCapability, "%s run --cap-add %s: the container gets a capability Docker withholds by default", prog, quoteName(o.value))
	case "--device":
		m.warn(WarnHostMount, "%s run --device: the container is given a host device", prog)
	case "--security-opt":
		if v := strings.ToLower(o.value); strings.HasSuffix(v, "=unconfined") || v == "label=disable" || v == "label:disable" {
			m.warn(WarnPrivileged, "%s run --security-opt %s: a confinement of the container is turned off", prog, quoteName(o.value))
		}
	case "--entrypoint":
		m.warn(WarnNote, "the audit runs the image's own entrypoint, not the client's --entrypoint %s", quoteName(o.value))
	case "--use-api-socket":
		m.warn(WarnDockerSocket, "%s run --use-api-socket: the container can control the Docker engine, and so the host", prog)
	}
}

func namespaceWord(flag string) string {
	switch flag {
	case "--network", "--net":
		return "network"
	case "--pid":
		return "processes"
	case "--ipc":
		return "shared memory"
	case "--uts":
		return "host name"
	case "--userns":
		return "user namespace (container root is host root)"
	}
	return "cgroups"
}

// dockerVolume: -v SRC:DST[:OPTS], where SRC is a host path or a named
// volume.
func dockerVolume(m *mapped, spec string) {
	src, _, ok := strings.Cut(spec, ":")
	if isWinAbs(spec) {
		// C:\data:/data: the first colon is the drive's.
		if i := strings.Index(spec[2:], ":"); i >= 0 {
			src, ok = spec[:2+i], true
		}
	}
	if !ok {
		return // an anonymous volume: -v /data
	}
	hostMount(m, src)
}

// dockerMount: --mount type=bind,source=SRC,target=DST.
func dockerMount(m *mapped, spec string) {
	var typ, src string
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToLower(k) {
		case "type":
			typ = v
		case "source", "src":
			src = v
		}
	}
	if typ == "bind" && src != "" {
		hostMount(m, src)
	}
}

func hostMount(m *mapped, src string) {
	if !isPathLike(src) && !strings.HasPrefix(src, "$") && src != "~" {
		return // a named volume
	}
	if strings.HasSuffix(src, "docker.sock") || strings.HasSuffix(src, "podman.sock") {
		m.warn(WarnDockerSocket, "the container is given the Docker socket (%s): it can control the engine, and so the host", quoteName(src))
		return
	}
	m.warn(WarnHostMount, "the container mounts the host path %s (the audit mounts no host path)", quoteName(src))
}
