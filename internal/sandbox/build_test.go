package sandbox

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// defaultHost is the host config expected for a spec with default limits
// and no network: every hardening option spelled out, no mounts but tmpfs.
func defaultHost() *container.HostConfig {
	pids := int64(512)
	return &container.HostConfig{
		NetworkMode: "none",
		CapDrop:     []string{"ALL"},
		CapAdd:      []string{"SYS_PTRACE", "SETUID", "SETGID", "DAC_READ_SEARCH"},
		SecurityOpt: []string{"no-new-privileges", "seccomp=PROFILE"},
		LogConfig:   container.LogConfig{Type: "none"},
		Tmpfs: map[string]string{
			"/home/dev": "rw,exec,nosuid,nodev,size=268435456,uid=1000,gid=1000,mode=0755",
			"/tmp":      "rw,exec,nosuid,nodev,size=268435456,mode=1777",
			"/var/tmp":  "rw,exec,nosuid,nodev,size=268435456,mode=1777",
			"/run/lock": "rw,nosuid,nodev,noexec,size=1048576,mode=1777",
		},
		Resources: container.Resources{
			Memory:     2 << 30,
			MemorySwap: 2 << 30,
			PidsLimit:  &pids,
			NanoCPUs:   2e9,
			Ulimits: []*container.Ulimit{
				{Name: "fsize", Soft: 1 << 30, Hard: 1 << 30},
				{Name: "nofile", Soft: 4096, Hard: 4096},
				{Name: "core", Soft: 0, Hard: 0},
			},
		},
	}
}

func TestHostConfig(t *testing.T) {
	tests := []struct {
		name   string
		net    string
		sinkID string // what Start passes for the created sink
		limits Limits
		edit   func(*container.HostConfig)
	}{
		{name: "none default limits"},
		{name: "zero mode is none", net: ""},
		{name: "sinkhole", net: NetSinkhole, sinkID: "sink1", edit: func(h *container.HostConfig) {
			h.NetworkMode = "container:sink1"
		}},
		{name: "open", net: NetOpen, sinkID: "sink2", edit: func(h *container.HostConfig) {
			h.NetworkMode = "container:sink2"
		}},
		{
			name: "custom limits",
			net:  NetNone,
			limits: Limits{
				MemoryBytes: 512 << 20, PIDs: 64, NanoCPUs: 5e8,
				TmpfsBytes: 16 << 20, FileBytes: 8 << 20, Deadline: time.Minute,
			},
			edit: func(h *container.HostConfig) {
				pids := int64(64)
				h.Resources.Memory, h.Resources.MemorySwap = 512<<20, 512<<20
				h.Resources.PidsLimit = &pids
				h.Resources.NanoCPUs = 5e8
				h.Resources.Ulimits[0].Soft, h.Resources.Ulimits[0].Hard = 8<<20, 8<<20
				h.Tmpfs["/home/dev"] = "rw,exec,nosuid,nodev,size=16777216,uid=1000,gid=1000,mode=0755"
				h.Tmpfs["/tmp"] = "rw,exec,nosuid,nodev,size=16777216,mode=1777"
				h.Tmpfs["/var/tmp"] = "rw,exec,nosuid,nodev,size=16777216,mode=1777"
			},
		},
		{
			name:   "partial limits keep the other defaults",
			limits: Limits{PIDs: 100},
			edit: func(h *container.HostConfig) {
				pids := int64(100)
				h.Resources.PidsLimit = &pids
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			need, err := needsSink(tt.net)
			if err != nil {
				t.Fatal(err)
			}
			if need != (tt.sinkID != "") {
				t.Fatalf("needsSink(%q) = %v", tt.net, need)
			}
			spec := Spec{Home: "/home/dev", UID: 1000, Net: Network{Mode: tt.net}, Limits: tt.limits}
			got := createOptions(spec, networkFor(tt.sinkID), "PROFILE", nil).HostConfig
			want := defaultHost()
			if tt.edit != nil {
				tt.edit(want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("host config (-want +got):\n%s", diff)
			}
			// Spelled out although the diff covers it: the package promises
			// that nothing of the host is mounted into the sandbox.
			if len(got.Binds) > 0 || len(got.Mounts) > 0 || got.Privileged {
				t.Errorf("binds %v, mounts %v, privileged %v", got.Binds, got.Mounts, got.Privileged)
			}
		})
	}
}

func TestNeedsSinkUnknownMode(t *testing.T) {
	if _, err := needsSink("bridge"); err == nil || !strings.Contains(err.Error(), `unknown network mode "bridge"`) {
		t.Errorf("err = %v", err)
	}
}

func TestEntryEnv(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want []string
	}{
		{
			name: "defaults",
			spec: Spec{User: "dev", UID: 1000, Workdir: "/w", Env: []string{"HOME=/home/dev"},
				CanaryFiles: []string{"/a", "/has space", "/b"}, ScanDir: "/w"},
			want: []string{"MCP_AUDIT_USER=dev", "MCP_AUDIT_UID=1000", "MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
				"MCP_AUDIT_STRSIZE=4096", "MCP_AUDIT_WORKDIR=/w", "MCP_AUDIT_WATCHDOG=900", "MCP_AUDIT_CANARY_FILES=/a /b",
				"MCP_AUDIT_SCAN_DIR=/w", "MCP_AUDIT_SCAN_LIMITS=64 256", "HOME=/home/dev"},
		},
		{
			name: "notrace install sinkhole CA",
			spec: Spec{User: "dev", UID: 1000, Workdir: "/w", StrSize: 256, NoTrace: true, ClockRate: 200,
				Limits:  Limits{Deadline: time.Minute},
				Install: &Install{Dir: "/pkg", Script: "npm ci", GID: 2000, Timeout: time.Millisecond},
				Net:     Network{Mode: NetSinkhole, CACert: []byte("CA")}},
			want: []string{"MCP_AUDIT_USER=dev", "MCP_AUDIT_UID=1000", "MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
				"MCP_AUDIT_STRSIZE=256", "MCP_AUDIT_WORKDIR=/w", "MCP_AUDIT_WATCHDOG=60", "MCP_AUDIT_CANARY_FILES=",
				"MCP_AUDIT_SCAN_DIR=", "MCP_AUDIT_SCAN_LIMITS=64 256", "MCP_AUDIT_NOTRACE=1", "MCP_AUDIT_CLOCK_RATE=200",
				"MCP_AUDIT_INSTALL_DIR=/pkg", "MCP_AUDIT_INSTALL_SCRIPT=" + InstallMarker + "\nnpm ci",
				"MCP_AUDIT_INSTALL_GID=2000", "MCP_AUDIT_INSTALL_TIMEOUT=1",
				"NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/corp-root-ca.crt", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
				"REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt", "CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
				"GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt"},
		},
		{
			name: "clock shifted, bounded; no shift without the shim",
			spec: Spec{User: "dev", UID: 1000, Workdir: "/w", ClockRate: 200, ClockShift: 90 * 86400},
			want: []string{"MCP_AUDIT_USER=dev", "MCP_AUDIT_UID=1000", "MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
				"MCP_AUDIT_STRSIZE=4096", "MCP_AUDIT_WORKDIR=/w", "MCP_AUDIT_WATCHDOG=900", "MCP_AUDIT_CANARY_FILES=",
				"MCP_AUDIT_SCAN_DIR=", "MCP_AUDIT_SCAN_LIMITS=64 256", "MCP_AUDIT_CLOCK_SHIFT=5184000", "MCP_AUDIT_CLOCK_RATE=200"},
		},
		{
			name: "a shift without the shim is none",
			spec: Spec{User: "dev", UID: 1000, Workdir: "/w", ClockRate: 1, ClockShift: 86400},
			want: []string{"MCP_AUDIT_USER=dev", "MCP_AUDIT_UID=1000", "MCP_AUDIT_TRACE_SET=" + strings.Join(TraceSet, ","),
				"MCP_AUDIT_STRSIZE=4096", "MCP_AUDIT_WORKDIR=/w", "MCP_AUDIT_WATCHDOG=900", "MCP_AUDIT_CANARY_FILES=",
				"MCP_AUDIT_SCAN_DIR=", "MCP_AUDIT_SCAN_LIMITS=64 256"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := entryEnv(tt.spec, tt.spec.Limits.withDefaults())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrust(t *testing.T) {
	tests := []struct {
		name string
		net  Network
		want []TarFile
	}{
		{name: "none ignores a CA", net: Network{Mode: NetNone, CACert: []byte("CA"), TrustPEM: []byte("T")}},
		{name: "sinkhole trusts the interception CA", net: Network{Mode: NetSinkhole, CACert: []byte("CA"), TrustPEM: []byte("T")},
			want: []TarFile{{Path: serverCA, Content: []byte("CA"), Mode: 0o644}}},
		{name: "open trusts the host's extra CAs", net: Network{Mode: NetOpen, CACert: []byte("CA"), TrustPEM: []byte("T")},
			want: []TarFile{{Path: serverCA, Content: []byte("T"), Mode: 0o644}}},
		{name: "open without extra CAs", net: Network{Mode: NetOpen, CACert: []byte("CA")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, trustFiles(tt.net)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if got := len(trustEnv(tt.net)) > 0; got != (tt.want != nil) {
				t.Errorf("trust env set = %v", got)
			}
		})
	}
}

func TestContainerConfig(t *testing.T) {
	spec := Spec{Image: "img", Cmd: []string{"node", "server.js"}}
	labels := map[string]string{LabelApp: "1"}
	got := createOptions(spec, "none", "PROFILE", labels).Config
	got.Env = nil // TestEntryEnv
	want := &container.Config{
		Image: "img", Cmd: []string{"/bin/sh", entryPath, "node", "server.js"},
		User: "0:0", WorkingDir: "/", Labels: labels, Hostname: Hostname,
		OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true, AttachStderr: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	// Behind a sink the engine refuses a hostname: the sink's is used.
	if h := createOptions(spec, networkFor("sink1"), "PROFILE", labels).Config.Hostname; h != "" {
		t.Errorf("hostname %q set for a container on the sink's network", h)
	}
}

func TestOwnerLabels(t *testing.T) {
	l := ownerLabels(time.Minute)
	if l[LabelApp] != "1" || l[LabelOwner] == "" || l[LabelDeadline] == "" {
		t.Errorf("labels %v", l)
	}
	// GC must read back what Start writes: this live process owns the
	// container until the deadline plus a minute has passed.
	host, _ := os.Hostname()
	if stale(l, host, time.Now()) {
		t.Errorf("fresh labels %v are stale", l)
	}
	if !stale(l, host, time.Now().Add(2*time.Minute+time.Second)) {
		t.Errorf("labels %v are not stale after the deadline", l)
	}
}

// createOnly is an engine on which only ContainerCreate may be called; it
// records the request and refuses it, which ends Start there.
type createOnly struct {
	Engine
	got client.ContainerCreateOptions
}

var errRefused = errors.New("refused")

func (e *createOnly) ContainerCreate(_ context.Context, o client.ContainerCreateOptions) (client.ContainerCreateResult, error) {
	e.got = o
	return client.ContainerCreateResult{}, errRefused
}

// TestStartCreatesHardened checks that Start asks the engine for exactly
// what the builders produce, with the real seccomp profile, and reports a
// refused create as such.
func TestStartCreatesHardened(t *testing.T) {
	e := &createOnly{}
	spec := Spec{Image: "img", User: "dev", UID: 1000, Home: "/home/dev", Cmd: []string{"true"}}
	_, err := (&Sandbox{Engine: e}).Start(context.Background(), spec)
	if !errors.Is(err, errRefused) || !strings.HasPrefix(err.Error(), "creating sandbox container: ") {
		t.Fatalf("err = %v", err)
	}
	profile, err := SeccompProfile()
	if err != nil {
		t.Fatal(err)
	}
	want := createOptions(spec, "none", profile, e.got.Config.Labels)
	if diff := cmp.Diff(want, e.got); diff != "" {
		t.Errorf("create options (-want +got):\n%s", diff)
	}
}
