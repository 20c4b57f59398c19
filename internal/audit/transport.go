package audit

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/observe"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

// Transports a server may speak.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Defaults of the HTTP transport's endpoint.
const (
	DefaultHTTPPort = 8080
	DefaultHTTPPath = "/mcp"
)

// httpEndpoint checks the transport options and returns the endpoint of
// an HTTP server (nil for stdio).
func httpEndpoint(o Options) (*sandbox.HTTPEndpoint, error) {
	switch o.Transport {
	case "", TransportStdio:
		return nil, nil
	case TransportHTTP:
	default:
		return nil, fmt.Errorf("%w: unknown transport %q (want stdio or http)", target.ErrUsage, o.Transport)
	}
	if o.Sandbox.Network == sandbox.NetNone {
		return nil, fmt.Errorf("%w: --transport http needs network mode sinkhole or open (the server is reached through the sink)", target.ErrUsage)
	}
	ep := &sandbox.HTTPEndpoint{Port: o.HTTPPort, Path: o.HTTPPath}
	if ep.Port == 0 {
		ep.Port = DefaultHTTPPort
	}
	if ep.Path == "" {
		ep.Path = DefaultHTTPPath
	}
	if ep.Port < 1 || ep.Port > 65535 || !strings.HasPrefix(ep.Path, "/") || strings.ContainsAny(ep.Path, " \t\r\n?#") {
		return nil, fmt.Errorf("%w: HTTP endpoint port %d path %q: want a port 1-65535 and an absolute path", target.ErrUsage, ep.Port, ep.Path)
	}
	return ep, nil
}

// newClient connects the MCP client to the run: over the server's stdio,
// or for an HTTP server through the sink's network namespace. The closer
// ends the transport (nil for stdio).
func newClient(run *sandbox.Run, spec sandbox.Spec, ch *observe.Observer, co mcpclient.Options) (*mcpclient.Client, io.Closer) {
	if spec.HTTP == nil {
		return mcpclient.New(run.Stdout, run, co), nil
	}
	// What the server prints on stdout is not the MCP channel here, but
	// it is still searched and judged.
	out := ch.Stdout()
	go func() { _, _ = io.Copy(out, run.Stdout); out.Close() }()
	port := spec.HTTP.Port
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return run.DialServer(ctx, port)
		},
		MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 0,
		DisableCompression: true,
	}}
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, spec.HTTP.Path)
	c, t := mcpclient.NewHTTP(mcpclient.HTTPOptions{URL: url, Client: hc, RetryInitialize: true}, co)
	return c, t
}

// markTransport records an HTTP server's transport and port in the
// manifest's target, so policy expects its listening socket.
func markTransport(man *m.Manifest, ep *sandbox.HTTPEndpoint) {
	if ep == nil {
		return
	}
	man.Target.Transport, man.Target.ListenPort = m.TransportHTTP, ep.Port
}
