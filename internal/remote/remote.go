// Package remote audits a remote (HTTP) MCP server from outside, surface
// only. A remote server runs on someone else's machine: it cannot be
// sandboxed, traced or given canaries, so what it does is never observed.
// What it offers can be: its opening, its lists and its ui:// pages are
// read without credentials (no header, token or query from a client file
// is ever sent), judged by the same policy as a sandboxed audit (text
// aimed at the model, hidden instructions), and pinned by the tools'
// digests in a manifest of ecosystem "remote", whose verdict is
// incomplete whatever it offered (coverage.SurfaceOnly). No tool is called
// unless the caller names it (Options.Calls).
//
// The server is hostile input: private, loopback, link-local and reserved
// addresses are refused at connect time (after resolution, so a name
// that rebinds is refused too), redirects to another origin are not
// followed, every response is drawn from one byte budget, every request
// and the whole audit have deadlines, and everything kept is bounded and
// sanitized by the packages that build the manifest (offers, observe).
package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/observe"
)

// Defaults of a surface audit.
const (
	// DefaultTimeout bounds the whole audit of one server.
	DefaultTimeout = 90 * time.Second
	// DefaultCallTimeout bounds one request (the opening, a list page, a
	// read or a call).
	DefaultCallTimeout = 20 * time.Second
	// DefaultMaxBytes is what is read from the server in all.
	DefaultMaxBytes = 32 << 20
	// MaxMessage bounds one message of the server.
	MaxMessage = 4 << 20
	// MaxUIReads bounds the ui:// resources read.
	MaxUIReads = 16
)

// Options are one surface audit.
type Options struct {
	// URL is the server's endpoint, without user, query or fragment
	// (clientconfig.Server.URL).
	URL string
	// Transport is manifest.TransportHTTP (Streamable HTTP, the default)
	// or manifest.TransportSSE (the 2024-11-05 HTTP+SSE transport).
	Transport string
	// Calls are the tools to call (--remote-call), with arguments made
	// from their schemas; none by default.
	Calls []string
	// Timeout, CallTimeout and MaxBytes default to the constants above.
	Timeout, CallTimeout time.Duration
	MaxBytes             int64
	// ClientName and ClientVersion are the clientInfo sent (default
	// mcpclient's, a popular client's).
	ClientName, ClientVersion string
	// AllowLoopback lets the audit reach a server on a loopback address.
	// It exists for tests, whose fixture servers listen on 127.0.0.1; no
	// command-line flag or configuration key sets it.
	AllowLoopback bool
}

// Audit contacts the server and returns its surface manifest. An error
// means nothing was audited: the URL or the address it resolved to is
// refused (ErrRefused), or ctx ended. A server that cannot be reached or
// does not complete the opening still gives a manifest, whose outcome
// says why.
func Audit(ctx context.Context, o Options) (*m.Manifest, error) {
	o.Transport = cmp.Or(o.Transport, m.TransportHTTP)
	if o.Transport != m.TransportHTTP && o.Transport != m.TransportSSE {
		return nil, fmt.Errorf("%w: unknown transport %q", ErrRefused, o.Transport)
	}
	o.Timeout, o.CallTimeout = cmp.Or(o.Timeout, DefaultTimeout), cmp.Or(o.CallTimeout, DefaultCallTimeout)
	o.MaxBytes = cmp.Or(o.MaxBytes, DefaultMaxBytes)
	u, err := checkURL(o.URL, o.AllowLoopback)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	g := &guard{allowLoopback: o.AllowLoopback}
	b := &budget{}
	b.left.Store(o.MaxBytes)
	cs := &canary.Set{} // nothing is planted: nothing is given to the server
	obs := observe.New(cs)
	c, tr := connect(u.String(), o, newHTTPClient(g, b), obs)
	s := &session{o: o, c: c, obs: obs, cs: cs, started: time.Now()}
	s.drive(ctx)
	c.Close()
	tr.Close()
	if why := g.why(); why != "" && !s.opened {
		return nil, fmt.Errorf("%w: %s", ErrRefused, why)
	}
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return nil, ctx.Err()
	}
	if b.left.Load() <= 0 {
		s.notes = append(s.notes, fmt.Sprintf("the server sent more than the %d MiB a surface audit reads; the rest was not read", o.MaxBytes>>20))
	}
	man := s.manifest(u.Host)
	man.Run.Tool = buildinfo.Tool()
	return man, nil
}

// connect is the client over the chosen transport, speaking both
// protocol eras (Open probes for the modern one first).
func connect(url string, o Options, hc *http.Client, obs *observe.Observer) (*mcpclient.Client, io.Closer) {
	co := mcpclient.Options{MaxLine: MaxMessage, Observe: obs.Observe, ClientName: o.ClientName, ClientVersion: o.ClientVersion}
	if o.Transport == m.TransportSSE {
		return mcpclient.NewSSE(mcpclient.SSEOptions{URL: url, Client: hc, MaxStream: o.MaxBytes, StreamTimeout: o.Timeout,
			RequestTimeout: o.CallTimeout}, co)
	}
	return mcpclient.NewHTTP(mcpclient.HTTPOptions{URL: url, Client: hc, MaxBody: MaxMessage, RequestTimeout: o.CallTimeout,
		ListenTimeout: o.CallTimeout, Parallel: 2}, co)
}
