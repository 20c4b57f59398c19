// Package testenv gives end-to-end tests a Docker engine, the sandbox
// image and a browser, or skips them: under -short always (the unit tier,
// see EndToEnd), otherwise with a clear message when no engine or browser
// answers. CI always has an engine (.ci/run starts one), so there these
// tests always run; MCP_AUDIT_REQUIRE_DOCKER=1 (and
// MCP_AUDIT_REQUIRE_CHROMIUM=1) turn the skip into a failure.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

var (
	sinkOnce sync.Once
	sinkErr  error
	once     sync.Once
	eng      *client.Client
	engErr   error
	imgOnce  sync.Once
	imgErr   error
)

// AnswerReserved are the reserved top-level domains the fixtures use: the
// test harness has the sinkhole answer them (audit.Options.AnswerReserved,
// and for the CLI the MCP_AUDIT_ANSWER_RESERVED variable, which Engine and
// SinkBinary set). Production audits answer neither, like a real resolver.
var AnswerReserved = []string{"example", "test"}

// answerReservedEnv sets MCP_AUDIT_ANSWER_RESERVED for CLI runs in this
// process and the scripts it starts, and MCP_AUDIT_ALL_CANARIES (see
// AllCanaries).
func answerReservedEnv() {
	for _, kv := range HarnessEnv() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

// HarnessEnv is the environment of the test harness for an mcp-audit run
// in another process or container (the Action's container): NAME=VALUE.
func HarnessEnv() []string {
	return []string{"MCP_AUDIT_ANSWER_RESERVED=" + strings.Join(AnswerReserved, ","), "MCP_AUDIT_ALL_CANARIES=1"}
}

// AllCanaries is whether the harness plants every provider canary
// variable (audit.Options.AllCanaries; for the CLI MCP_AUDIT_ALL_CANARIES,
// which Engine and SinkBinary set): the fixtures steal particular ones. A
// test of the per-run subset turns it off for itself.
const AllCanaries = true

// Engine returns a connected engine or skips the test.
func Engine(t testing.TB) *client.Client {
	t.Helper()
	EndToEnd(t, RequireDocker)
	answerReservedEnv()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		eng, engErr = sandbox.Connect(ctx)
	})
	if engErr != nil {
		if os.Getenv(RequireDocker) != "" {
			t.Fatalf("docker required: %v", engErr)
		}
		t.Skipf("skipping: no Docker engine (%v)", engErr)
	}
	return eng
}

// SinkBinary builds a static mcp-audit once (the sandbox copies it into the
// sink container) and points MCP_AUDIT_SINK_BINARY at it. Test binaries are
// built with cgo for -race, so they cannot be the sink themselves.
func SinkBinary(t testing.TB) string {
	t.Helper()
	EndToEnd(t, RequireDocker)
	answerReservedEnv()
	sinkOnce.Do(func() {
		if p := os.Getenv("MCP_AUDIT_SINK_BINARY"); p != "" {
			return
		}
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			sinkErr = err
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		dir, err := os.MkdirTemp("", "mcp-audit-sink-*")
		if err != nil {
			sinkErr = err
			return
		}
		bin := filepath.Join(dir, "mcp-audit")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcp-audit")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			sinkErr = fmt.Errorf("building the sink binary: %v\n%s", err, b)
			return
		}
		os.Setenv("MCP_AUDIT_SINK_BINARY", bin)
	})
	if sinkErr != nil {
		t.Fatal(sinkErr)
	}
	return os.Getenv("MCP_AUDIT_SINK_BINARY")
}

// Image makes sure the sandbox image exists (building it on first use) and
// returns its reference.
func Image(t testing.TB) string {
	t.Helper()
	e := Engine(t)
	SinkBinary(t)
	imgOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		_, imgErr = sandbox.EnsureImage(ctx, e, sandbox.ImageOptions{Flavor: os.Getenv("MCP_AUDIT_IMAGE_FLAVOR"), Log: os.Stderr})
	})
	if imgErr != nil {
		t.Fatalf("sandbox image: %v", imgErr)
	}
	return sandbox.DefaultImage
}

// Leftovers returns the ids of sandbox containers this test process
// created that still exist. Containers of other packages' tests, which go
// test runs concurrently, are not counted.
func Leftovers(t testing.TB) []string {
	t.Helper()
	e := Engine(t)
	host, _ := os.Hostname()
	res, err := e.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: client.Filters{}.Add("label", sandbox.LabelApp+"=1").
			Add("label", fmt.Sprintf("%s=%s:%d", sandbox.LabelOwner, host, os.Getpid()))})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// Installer returns the container installer on the test engine (installs
// never run npm on the host), or skips the test.
func Installer(t testing.TB) *sandbox.PackageInstaller {
	t.Helper()
	return &sandbox.PackageInstaller{Engine: Engine(t)}
}
