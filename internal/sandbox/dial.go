package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// A server speaking Streamable HTTP listens inside the run's network
// namespace, which the host cannot reach (the sink's namespace has no
// interface but loopback). DialServer reaches it through the sink
// container, which owns that namespace: each connection is a small relay
// process exec'd there, connecting to the port on loopback and copying
// bytes between it and the exec's standard streams. The relay runs as root
// in the sink container, whose own sockets the netfilter rules leave
// alone, and it is not a process of the server's: nothing in the trace.

// Execer is the part of the Engine API DialServer uses. The moby client
// satisfies it.
type Execer interface {
	ExecCreate(ctx context.Context, containerID string, options client.ExecCreateOptions) (client.ExecCreateResult, error)
	ExecAttach(ctx context.Context, execID string, options client.ExecAttachOptions) (client.ExecAttachResult, error)
}

// ErrNoPath means the run has no sink to dial through (network mode none).
var ErrNoPath = errors.New("no way into the sandbox network: HTTP transport needs network mode sinkhole or open")

// relayScript is run by node from the sandbox image the sink is built on.
const relayScript = `const s=require('net').connect(+process.argv[1],'127.0.0.1');` +
	`process.stdin.pipe(s);s.pipe(process.stdout);` +
	`s.on('error',()=>process.exit(1));s.on('close',()=>process.exit(0));`

// DialServer opens a TCP connection to port on the sandbox's loopback.
func (r *Run) DialServer(ctx context.Context, port int) (net.Conn, error) {
	ex, ok := r.sb.Engine.(Execer)
	if !ok || r.sink == nil {
		return nil, ErrNoPath
	}
	created, err := ex.ExecCreate(ctx, r.sink.id, client.ExecCreateOptions{
		User: "0:0", AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Cmd: []string{"node", "-e", relayScript, strconv.Itoa(port)},
	})
	if err != nil {
		return nil, fmt.Errorf("creating relay into the sandbox: %w", err)
	}
	att, err := ex.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("starting relay into the sandbox: %w", err)
	}
	pr, pw := io.Pipe()
	go func() {
		// stderr of the relay is ours, not the server's: bounded and dropped.
		_, err := stdcopy.StdCopy(pw, io.Discard, att.Reader)
		pw.CloseWithError(cmpErr(err))
	}()
	return &relayConn{h: att.HijackedResponse, r: pr}, nil
}

func cmpErr(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
}

// relayConn is a net.Conn over an exec's standard streams. Deadlines are
// not supported; the HTTP client's contexts close the connection instead.
type relayConn struct {
	h client.HijackedResponse
	r *io.PipeReader
}

func (c *relayConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *relayConn) Write(p []byte) (int, error) { return c.h.Conn.Write(p) }
func (c *relayConn) Close() error {
	c.r.Close()
	c.h.Close()
	return nil
}
func (c *relayConn) LocalAddr() net.Addr              { return relayAddr{} }
func (c *relayConn) RemoteAddr() net.Addr             { return relayAddr{} }
func (c *relayConn) SetDeadline(time.Time) error      { return nil }
func (c *relayConn) SetReadDeadline(time.Time) error  { return nil }
func (c *relayConn) SetWriteDeadline(time.Time) error { return nil }

type relayAddr struct{}

func (relayAddr) Network() string { return "sandbox" }
func (relayAddr) String() string  { return "sandbox-relay" }
