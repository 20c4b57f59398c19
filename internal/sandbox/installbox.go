package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// NetworkEngine is the part of the Engine API an install container needs
// beyond Engine: its own internal network.
type NetworkEngine interface {
	Engine
	NetworkCreate(ctx context.Context, name string, options client.NetworkCreateOptions) (client.NetworkCreateResult, error)
	NetworkInspect(ctx context.Context, networkID string, options client.NetworkInspectOptions) (client.NetworkInspectResult, error)
	NetworkRemove(ctx context.Context, networkID string, options client.NetworkRemoveOptions) (client.NetworkRemoveResult, error)
	NetworkConnect(ctx context.Context, networkID string, options client.NetworkConnectOptions) (client.NetworkConnectResult, error)
	NetworkDisconnect(ctx context.Context, networkID string, options client.NetworkDisconnectOptions) (client.NetworkDisconnectResult, error)
}

// PackageInstaller runs a package manager in a throwaway container built
// from the sandbox image: no capabilities, no token, no Docker socket, no
// host mounts, files in and out through the archive endpoints, and an
// internal network on which the only reachable address is the host's end
// of the bridge, where the registry gate listens. It satisfies
// target.Installer.
type PackageInstaller struct {
	Engine NetworkEngine
	// Image is the sandbox image (it carries node and npm); built when
	// missing.
	Image string
}

// installUID owns the work tree inside the container.
const installUID = 1000

// Install runs job.Argv in a copy of job.Dir and replaces job.Dir with the
// result.
func (p *PackageInstaller) Install(ctx context.Context, job target.InstallJob) ([]byte, error) {
	image, err := EnsureImage(ctx, p.Engine, ImageOptions{Ref: p.Image})
	if err != nil {
		return nil, err
	}
	netID, gw, err := p.network(ctx)
	if err != nil {
		return nil, err
	}
	defer p.removeNetwork(netID)
	ln, leave, err := p.listenForInstall(ctx, netID, gw)
	if err != nil {
		return nil, err
	}
	defer leave()
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: job.Gate(base), ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	id, err := p.create(ctx, image, netID, job.Argv(base))
	if err != nil {
		return nil, err
	}
	defer p.remove(id)
	if err := p.copyIn(ctx, id, job.Dir); err != nil {
		return nil, err
	}
	out, err := p.run(ctx, id, job.Timeout)
	if err != nil {
		return out, err
	}
	return out, p.copyOut(ctx, id, job.Dir)
}

func (p *PackageInstaller) network(ctx context.Context) (id, gateway string, err error) {
	name := "mcp-audit-install-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	res, err := p.Engine.NetworkCreate(ctx, name, client.NetworkCreateOptions{
		Driver: "bridge", Internal: true, Labels: ownerLabels(time.Hour),
	})
	if err != nil {
		return "", "", fmt.Errorf("creating the install network: %w", err)
	}
	ins, err := p.Engine.NetworkInspect(ctx, res.ID, client.NetworkInspectOptions{})
	if err != nil {
		p.removeNetwork(res.ID)
		return "", "", fmt.Errorf("inspecting the install network: %w", err)
	}
	for _, c := range ins.Network.IPAM.Config {
		if c.Gateway.Is4() {
			return res.ID, c.Gateway.String(), nil
		}
	}
	p.removeNetwork(res.ID)
	return "", "", errors.New("the install network has no IPv4 gateway")
}

func (p *PackageInstaller) removeNetwork(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Engine.NetworkRemove(ctx, id, client.NetworkRemoveOptions{})
}

func (p *PackageInstaller) create(ctx context.Context, image, netID string, argv []string) (string, error) {
	lim := DefaultLimits
	res, err := p.Engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image: image, Cmd: argv, WorkingDir: "/work", User: strconv.Itoa(installUID),
			Entrypoint: []string{},
			Env: []string{"HOME=/tmp/home", "npm_config_cache=/tmp/npm-cache", "npm_config_update_notifier=false",
				"npm_config_fund=false", "npm_config_audit=false", "npm_config_ignore_scripts=true",
				"npm_config_userconfig=/tmp/home/.npmrc", "npm_config_globalconfig=/tmp/npmrc-global", "npm_config_noproxy=",
				"npm_config_proxy=", "npm_config_https_proxy=", "PATH=/usr/local/bin:/usr/bin:/bin"},
			Labels: ownerLabels(lim.Deadline),
		},
		HostConfig: &container.HostConfig{
			NetworkMode: container.NetworkMode(netID),
			CapDrop:     []string{"ALL"},
			SecurityOpt: []string{"no-new-privileges"},
			Tmpfs:       map[string]string{"/tmp": "rw,nosuid,nodev,size=1g"},
			LogConfig:   container.LogConfig{Type: "none"},
			Resources: container.Resources{Memory: lim.MemoryBytes, MemorySwap: lim.MemoryBytes,
				PidsLimit: &lim.PIDs, NanoCPUs: lim.NanoCPUs},
		},
	})
	if err != nil {
		return "", fmt.Errorf("creating the install container: %w", err)
	}
	return res.ID, nil
}

func (p *PackageInstaller) remove(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Engine.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
}

func (p *PackageInstaller) copyIn(ctx context.Context, id, dir string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := addTree(tw, Tree{Src: dir, Dst: "/work", UID: installUID, GID: installUID}); err != nil {
		return fmt.Errorf("packing the install directory: %w", err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if _, err := p.Engine.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
		return fmt.Errorf("copying into the install container: %w", err)
	}
	return nil
}

// maxInstallOutput bounds what npm prints that we keep.
const maxInstallOutput = 64 << 10

// run starts the container and waits for it; its output (stdout and
// stderr, bounded) explains a failure.
func (p *PackageInstaller) run(ctx context.Context, id string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	att, err := p.Engine.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, fmt.Errorf("attaching to the install container: %w", err)
	}
	defer att.Close()
	out := &tailBuffer{max: maxInstallOutput}
	done := make(chan struct{})
	go func() { stdcopy.StdCopy(out, out, att.Reader); close(done) }()
	wait := p.Engine.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := p.Engine.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return nil, fmt.Errorf("starting the install container: %w", err)
	}
	select {
	case res := <-wait.Result:
		<-done
		if res.StatusCode != 0 {
			return out.Bytes(), fmt.Errorf("exit status %d (install container)", res.StatusCode)
		}
		return out.Bytes(), nil
	case err := <-wait.Error:
		return out.Bytes(), fmt.Errorf("waiting for the install container: %w", err)
	case <-ctx.Done():
		return out.Bytes(), fmt.Errorf("installing: %w", ctx.Err())
	}
}

// copyOut replaces dir with the container's /work, extracted safely.
func (p *PackageInstaller) copyOut(ctx context.Context, id, dir string) error {
	res, err := p.Engine.CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: "/work"})
	if err != nil {
		return fmt.Errorf("copying the installed tree out: %w", err)
	}
	defer res.Content.Close()
	fresh := dir + ".installed"
	os.RemoveAll(fresh)
	if err := target.ExtractTree(res.Content, fresh, "work"); err != nil {
		os.RemoveAll(fresh)
		return fmt.Errorf("extracting the installed tree: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(fresh, dir)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte { return t.buf }
