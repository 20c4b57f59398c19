package sandbox

import (
	"bufio"
	"cmp"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// Network modes.
const (
	NetNone     = "none"     // --network none: no interface but loopback
	NetSinkhole = "sinkhole" // a sink owns the namespace; nothing leaves
	NetOpen     = "open"     // real egress; DNS still logged by the sink
)

// Network configures the sandbox's network.
type Network struct {
	Mode string
	// CACert and CAKey are the run's interception CA (sinkhole mode).
	CACert, CAKey []byte
	// TrustPEM are extra CA certificates the server should trust in open
	// mode (corporate TLS proxies): the host's NODE_EXTRA_CA_CERTS etc.
	TrustPEM  []byte
	Responses map[string]sinklog.Response
	// Fields are the fields the package's code reads from API answers
	// (sink.ReadFields), for the answers the sink shapes.
	Fields []string
	// Answer are domain suffixes the sinkhole answers although no public
	// resolver would (see sinklog.Config.Answer).
	Answer []string
	// Upstream is the resolver the open mode forwards to; default: the
	// engine's resolver for the sink container.
	Upstream string
	// AnswerNet is the range the sinkhole answers names from (default
	// sinklog.FakeNet).
	AnswerNet string
	// BaseImageID keys the cached sink image.
	BaseImageID string
	// BaseImage is the image the sink is built on when the server's image
	// is not the sandbox image (an audited OCI image); default Spec.Image.
	BaseImage string
}

const (
	sinkDir     = "/opt/mcp-audit-sink"
	sinkBinPath = sinkDir + "/mcp-audit"
	sinkConfig  = sinkDir + "/config.json"
	sinkLogDir  = "/var/lib/mcp-audit-sink"
	sinkLog     = sinkLogDir + "/events.jsonl"
	// serverCA is where a user's machine keeps a CA it was told to trust
	// (a corporate TLS proxy's): nothing in the path names the audit.
	serverCA = "/usr/local/share/ca-certificates/corp-root-ca.crt"
)

// SinkBinary returns a static Linux build of mcp-audit to run as the sink:
// $MCP_AUDIT_SINK_BINARY, or the running executable when it is one.
func SinkBinary() ([]byte, error) {
	if p := os.Getenv("MCP_AUDIT_SINK_BINARY"); p != "" {
		return readStatic(p)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := readStatic(exe)
	if err != nil {
		return nil, fmt.Errorf("%w; build mcp-audit with CGO_ENABLED=0 (make build does) or set MCP_AUDIT_SINK_BINARY", err)
	}
	return b, nil
}

func readStatic(path string) ([]byte, error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("the sinkhole needs a Linux build of mcp-audit")
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sink binary %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("sink binary %s is dynamically linked", path)
		}
	}
	return os.ReadFile(path)
}

// sinkRun is the running sink container.
type sinkRun struct {
	id     string
	ready  chan error
	stderr *Tail
	hijack *client.HijackedResponse
	files  []TarFile // its configuration and CA, copied in before it starts
}

// sinkFor creates the sink container the network mode needs, if any, and
// starts it in the background while the server container is prepared;
// await waits for it.
func (s *Sandbox) sinkFor(ctx context.Context, spec Spec) (*sinkRun, error) {
	need, err := needsSink(spec.Net.Mode)
	if err != nil || !need {
		return nil, err
	}
	sr, err := s.createSink(ctx, spec)
	if err != nil {
		return nil, err
	}
	go s.startSink(ctx, sr)
	return sr, nil
}

// await waits until the sink is listening; a nil sink is always ready.
func (sr *sinkRun) await(ctx context.Context) error {
	if sr == nil {
		return nil
	}
	var err error
	select {
	case err = <-sr.ready:
	case <-time.After(30 * time.Second):
		err = errors.New("the sink did not become ready in 30s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("starting network sink: %w", err)
	}
	return nil
}

// createSink creates (but does not start) the sink container.
func (s *Sandbox) createSink(ctx context.Context, spec Spec) (*sinkRun, error) {
	img, err := s.sinkImage(ctx, spec)
	if err != nil {
		return nil, err
	}
	netMode := "none"
	sysctls := map[string]string{"net.ipv6.conf.all.disable_ipv6": "1"}
	if spec.Net.Mode == NetOpen {
		netMode, sysctls = "bridge", nil
	}
	pids := int64(64)
	created, err := s.Engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image: img, User: "0:0", WorkingDir: "/", Hostname: cmp.Or(spec.Hostname, Hostname), // the server shares its UTS namespace
			Cmd:          []string{sinkBinPath, "sink", "--config", sinkConfig},
			AttachStdout: true, AttachStderr: true,
			Labels: ownerLabels(spec.Limits.withDefaults().Deadline),
		},
		HostConfig: &container.HostConfig{
			NetworkMode: container.NetworkMode(netMode),
			CapDrop:     []string{"ALL"},
			CapAdd:      []string{"NET_ADMIN", "NET_BIND_SERVICE"},
			SecurityOpt: []string{"no-new-privileges"},
			Sysctls:     sysctls,
			LogConfig:   container.LogConfig{Type: "none"},
			Resources:   container.Resources{Memory: 512 << 20, MemorySwap: 512 << 20, PidsLimit: &pids},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating sink container: %w", err)
	}
	sr := &sinkRun{id: created.ID, ready: make(chan error, 1), stderr: NewTail(8 << 10)}
	cfg := sinklog.Config{
		Mode: spec.Net.Mode, Upstream: spec.Net.Upstream, LogFile: sinkLog, CACertFile: sinkDir + "/ca.pem", CAKeyFile: sinkDir + "/ca.key",
		Responses: spec.Net.Responses, Fields: spec.Net.Fields, Answer: spec.Net.Answer, MaxLogBytes: 64 << 20, MaxBody: 1 << 20,
		AnswerNet: spec.Net.AnswerNet,
	}
	cfgJSON, _ := json.Marshal(cfg)
	caCert, caKey := spec.Net.CACert, spec.Net.CAKey
	if len(caCert) == 0 {
		if caCert, caKey, err = sink.NewCA(); err != nil {
			s.removeID(created.ID)
			return nil, err
		}
	}
	// Copied in by startSink, while the server container is created.
	sr.files = []TarFile{
		{Path: sinkConfig, Content: cfgJSON, Mode: 0o600},
		{Path: sinkDir + "/ca.pem", Content: caCert, Mode: 0o644},
		{Path: sinkDir + "/ca.key", Content: caKey, Mode: 0o600},
		{Path: sinkLogDir, Dir: true, Mode: 0o700},
	}
	return sr, nil
}

// startSink copies the sink's files in, starts it and reports on sr.ready when it is listening.
func (s *Sandbox) startSink(ctx context.Context, sr *sinkRun) {
	if err := s.copyFiles(ctx, sr.id, sr.files, nil); err != nil {
		sr.ready <- fmt.Errorf("copying the sink's files: %w", err)
		return
	}
	att, err := s.Engine.ContainerAttach(ctx, sr.id, client.ContainerAttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		sr.ready <- fmt.Errorf("attaching to sink: %w", err)
		return
	}
	sr.hijack = &att.HijackedResponse
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, sr.stderr, att.Reader)
		pw.CloseWithError(err)
	}()
	go func() {
		sc := bufio.NewScanner(io.LimitReader(pr, 1<<16))
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" {
				sr.ready <- nil
				io.Copy(io.Discard, pr)
				return
			}
		}
		sr.ready <- fmt.Errorf("the sink exited before it was ready: %s", strings.TrimSpace(sr.stderr.String()))
	}()
	if _, err := s.Engine.ContainerStart(ctx, sr.id, client.ContainerStartOptions{}); err != nil {
		sr.ready <- fmt.Errorf("starting sink: %w", err)
	}
}

func (s *Sandbox) removeID(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Engine.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !isNotFound(err) {
		s.log().Warn("removing container", "container", shortID(id), "err", err)
	}
}

// collectSink stops the sink and copies its log out (bounded).
func (s *Sandbox) collectSink(ctx context.Context, sr *sinkRun, max int64) ([]byte, error) {
	_, _ = s.Engine.ContainerKill(ctx, sr.id, client.ContainerKillOptions{Signal: "TERM"})
	wait := s.Engine.ContainerWait(ctx, sr.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-wait.Result:
	case <-wait.Error:
	case <-time.After(5 * time.Second):
		_, _ = s.Engine.ContainerKill(ctx, sr.id, client.ContainerKillOptions{Signal: "KILL"})
	}
	s.log().Debug("sink stopped")
	res, err := s.Engine.CopyFromContainer(ctx, sr.id, client.CopyFromContainerOptions{SourcePath: sinkLog})
	if err != nil {
		return nil, fmt.Errorf("copying sink log: %w", err)
	}
	defer res.Content.Close()
	return readTarFile(res.Content, max)
}
