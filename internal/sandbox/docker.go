// Package sandbox runs one MCP server in a disposable, hardened Docker
// container under strace, through the Docker Engine API.
//
// Nothing is bind-mounted from the host: files go in and out with the
// archive endpoints (copy to/from container), so the same code works when
// mcp-audit itself runs in a container talking to a runner's daemon, where
// host paths differ. Every container is labeled, removed when the run ends
// (also on cancellation, using a fresh context), and containers left behind
// by a crashed mcp-audit are collected by GC.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// ErrDockerUnavailable means no Docker engine answered.
var ErrDockerUnavailable = errors.New("docker engine unavailable")

// Engine is the part of the Docker Engine API mcp-audit uses. The moby
// client satisfies it; tests pass a small fake.
type Engine interface {
	Ping(ctx context.Context, options client.PingOptions) (client.PingResult, error)
	ContainerCreate(ctx context.Context, options client.ContainerCreateOptions) (client.ContainerCreateResult, error)
	ContainerStart(ctx context.Context, containerID string, options client.ContainerStartOptions) (client.ContainerStartResult, error)
	ContainerAttach(ctx context.Context, containerID string, options client.ContainerAttachOptions) (client.ContainerAttachResult, error)
	ContainerKill(ctx context.Context, containerID string, options client.ContainerKillOptions) (client.ContainerKillResult, error)
	ContainerWait(ctx context.Context, containerID string, options client.ContainerWaitOptions) client.ContainerWaitResult
	ContainerInspect(ctx context.Context, containerID string, options client.ContainerInspectOptions) (client.ContainerInspectResult, error)
	ContainerRemove(ctx context.Context, containerID string, options client.ContainerRemoveOptions) (client.ContainerRemoveResult, error)
	ContainerList(ctx context.Context, options client.ContainerListOptions) (client.ContainerListResult, error)
	ContainerStatPath(ctx context.Context, containerID string, options client.ContainerStatPathOptions) (client.ContainerStatPathResult, error)
	CopyToContainer(ctx context.Context, containerID string, options client.CopyToContainerOptions) (client.CopyToContainerResult, error)
	CopyFromContainer(ctx context.Context, containerID string, options client.CopyFromContainerOptions) (client.CopyFromContainerResult, error)
	ImageInspect(ctx context.Context, imageID string, inspectOpts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, options client.ImageBuildOptions) (client.ImageBuildResult, error)
	ImageImport(ctx context.Context, source client.ImageImportSource, ref string, options client.ImageImportOptions) (client.ImageImportResult, error)
	ImageRemove(ctx context.Context, imageID string, options client.ImageRemoveOptions) (client.ImageRemoveResult, error)
	ImageList(ctx context.Context, options client.ImageListOptions) (client.ImageListResult, error)
	ContainerCommit(ctx context.Context, containerID string, options client.ContainerCommitOptions) (client.ContainerCommitResult, error)
}

// Connect returns a client for the engine named by DOCKER_HOST (or the
// default socket), with the API version negotiated, after checking that the
// engine answers.
func Connect(ctx context.Context) (*client.Client, error) {
	c, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDockerUnavailable, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w at %s: %v\n%s", ErrDockerUnavailable, c.DaemonHost(), err, startHint())
	}
	return c, nil
}

func startHint() string {
	var b strings.Builder
	b.WriteString("mcp-audit runs servers in Docker containers and needs a running engine.\n")
	if _, err := os.Stat("/usr/sbin/dockerd"); err == nil {
		b.WriteString("Start it with:  sudo dockerd >/var/log/dockerd.log 2>&1 &   (or: sudo systemctl start docker)")
	} else {
		b.WriteString("Install and start it, e.g. on Debian/Ubuntu:  sudo apt-get install -y docker.io && sudo dockerd &")
	}
	b.WriteString("\nOr point DOCKER_HOST at a reachable engine.")
	return b.String()
}
