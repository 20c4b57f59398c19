package sandbox_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestInstallFromInsideAContainer runs mcp-audit the way the GitHub Action
// does — in a container on the engine's default bridge, with the engine's
// socket — and audits a package that has a dependency. The registry gate
// cannot listen on the install network's bridge there; mcp-audit joins the
// install network itself, and the install still never runs npm outside
// the install container.
func TestInstallFromInsideAContainer(t *testing.T) {
	eng := testenv.Engine(t)
	image := testenv.Image(t)
	bin := testenv.SinkBinary(t)
	if _, err := os.Stat("/var/run/docker.sock"); err != nil {
		t.Skip("the engine is not on /var/run/docker.sock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bridge, err := eng.NetworkInspect(ctx, "bridge", client.NetworkInspectOptions{})
	if err != nil || len(bridge.Network.IPAM.Config) == 0 {
		t.Skipf("no default bridge: %v", err)
	}
	gw := bridge.Network.IPAM.Config[0].Gateway
	if !gw.IsValid() { // the default bridge often lists only its subnet
		gw = bridge.Network.IPAM.Config[0].Subnet.Addr().Next()
	}
	reg := testenv.NewRegistryAt(t, gw.String()+":0")
	fixture := filepath.Join("..", "..", "testdata", "fixtures", "fixture-server")
	reg.PublishFixture(t, fixture, "plain-dep", "1.0.0")
	reg.PublishFixtureDeps(t, fixture, "needs-dep", "1.0.0", map[string]string{"plain-dep": "1.0.0"})

	self, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	created, err := eng.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: image, Entrypoint: []string{"/mcp-audit"}, User: "0",
			Cmd:    []string{"audit", "--calls", "none", "-q", "--cache-dir", "/tmp/cache", "npm:needs-dep@1.0.0"},
			Env:    []string{"HOME=/tmp", "NPM_CONFIG_REGISTRY=" + reg.URL, "MCP_AUDIT_SINK_BINARY=/mcp-audit"},
			Labels: map[string]string{sandbox.LabelApp: "1"}},
		HostConfig: &container.HostConfig{Mounts: []mount.Mount{{Type: mount.TypeBind, Source: "/var/run/docker.sock", Target: "/var/run/docker.sock"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	tw.WriteHeader(&tar.Header{Name: "mcp-audit", Mode: 0o755, Size: int64(len(self)), Typeflag: tar.TypeReg})
	tw.Write(self)
	tw.Close()
	if _, err := eng.CopyToContainer(ctx, created.ID, client.CopyToContainerOptions{DestinationPath: "/", Content: &tarball}); err != nil {
		t.Fatal(err)
	}
	wait := eng.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := eng.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	var code int64
	select {
	case res := <-wait.Result:
		code = res.StatusCode
	case err := <-wait.Error:
		t.Fatal(err)
	}
	logs, _ := eng.ContainerLogs(ctx, created.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	var out, errOut bytes.Buffer
	if logs != nil {
		stdcopy.StdCopy(&out, &errOut, logs)
	}
	if code != 0 || !strings.Contains(out.String(), `"name": "needs-dep"`) {
		t.Fatalf("audit in a container exited %d\nstdout: %.2000s\nstderr: %.4000s", code, out.String(), errOut.String())
	}
}
