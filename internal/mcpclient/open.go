package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// The modern probe's deadlines. A server that is up answers
// server/discover (or refuses it) in milliseconds — measured in the
// sandbox image on the shared machine: an SDK v1 server refuses it with
// -32601 in 6-64 ms, an SDK v2 server answers in 1.5-60 ms (364 ms for its
// very first request) — so DefaultProbeTimeout counts from the first sign
// that the server is up: a line it wrote, the HTTP transport's first
// answer, or OpenOptions.Ready. Until then it may still be starting: from
// 0.3 s to 7.9 s before its first answer for these fixtures, untraced, on
// the loaded machine; a server that shows no sign is given
// DefaultProbeStartup from the sending. Only a server that ignores unknown
// requests pays either wait; a modern one slower than both is still seen
// by its late answer (Probe.Late).
const (
	DefaultProbeTimeout = 2 * time.Second
	DefaultProbeStartup = 15 * time.Second
)

// ProbeID is the JSON-RPC id of the modern probe: the one the official SDK
// client gives its probe, in a namespace of its own, so that the requests
// after it carry the ids a 2025 client would send.
const ProbeID = "server-discover-probe-1"

// OpenOptions choose how a session opens.
type OpenOptions struct {
	// Protocol is ProtocolAuto (the default), ProtocolModern or
	// ProtocolLegacy.
	Protocol string
	// ProbeTimeout bounds the wait for the modern probe's answer once the
	// server shows it is up (default DefaultProbeTimeout).
	ProbeTimeout time.Duration
	// ProbeStartup bounds the wait for a server that shows no sign of
	// being up (default DefaultProbeStartup).
	ProbeStartup time.Duration
	// Ready, if set, is closed when the caller knows the server is up and
	// reading (its trace shows it blocked on its input, it wrote to
	// stderr): the probe deadline then runs from there.
	Ready <-chan struct{}
}

// Open opens the session in the era opts choose, within ctx (the
// server's startup budget). Auto sends server/discover first and, unless
// the answer is modern evidence, falls back to the 2025 initialize
// handshake; a 2025-era server sees one request it answers with an error
// (or ignores), and otherwise exactly what a 2025 client sends. A modern-only
// server that rejects initialize with the unsupported-version error is
// then spoken to in the modern era. The error of a failed opening is an
// *OpenError carrying the real reason.
func (c *Client) Open(ctx context.Context, opts OpenOptions) (*Opening, error) {
	proto, err := ParseProtocol(opts.Protocol)
	if err != nil {
		return nil, err
	}
	switch proto {
	case ProtocolLegacy:
		o, err := c.openLegacy(ctx)
		if err != nil {
			return nil, c.openErr(proto, "initialize", err, Probe{Outcome: ProbeSkipped})
		}
		o.Probe.Outcome = ProbeSkipped
		return o, nil
	case ProtocolModern:
		o, err := c.openModern(ctx, nil)
		if err != nil {
			return nil, c.openErr(proto, "server/discover", err, Probe{Outcome: ProbeSkipped})
		}
		o.Probe.Outcome = ProbeSkipped
		return o, nil
	}
	return c.openAuto(ctx, opts)
}

// openLegacy performs the 2025 handshake and pins the session to it.
func (c *Client) openLegacy(ctx context.Context) (*Opening, error) {
	r, raw, err := c.initialize(ctx)
	if err != nil {
		return nil, err
	}
	c.setEra(EraLegacy)
	return openingFromInitialize(r, raw), nil
}

// openModern sends server/discover with the envelope (id nil: the next
// number) and pins the session to the modern era.
func (c *Client) openModern(ctx context.Context, id any) (*Opening, error) {
	raw, err := c.callModern(ctx, id, "server/discover", nil)
	if err != nil {
		return nil, err
	}
	o, err := ParseDiscover(raw)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(o.SupportedVersions, ProtocolModern) && len(o.SupportedVersions) > 0 {
		return nil, &RPCError{Code: CodeUnsupportedVersion, Message: "server/discover lists no revision this client speaks: " + truncate(joinVersions(o.SupportedVersions), 200)}
	}
	c.setEra(EraModern)
	o.Eras = []Era{EraModern}
	return o, nil
}

// callModern sends one request with the modern envelope whatever the
// session's era (the probe is sent before there is one).
func (c *Client) callModern(ctx context.Context, id any, method string, params any) (json.RawMessage, error) {
	p, err := c.withEnvelope(params)
	if err != nil {
		return nil, err
	}
	key, ch, err := c.start(id, method, p)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, key, method, ch)
}

// openAuto probes, then falls back.
func (c *Client) openAuto(ctx context.Context, opts OpenOptions) (*Opening, error) {
	p, err := c.withEnvelope(nil)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.probeID = ProbeID
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.probeID = ""; c.mu.Unlock() }()
	start := time.Now()
	key, ch, err := c.start(ProbeID, "server/discover", p)
	if err != nil {
		return nil, c.openErr(ProtocolAuto, "server/discover", err, Probe{})
	}
	raw, perr := c.awaitProbe(ctx, ch, opts)
	probe := Probe{Duration: time.Since(start)}
	o, modern, err := c.probeVerdict(raw, perr, &probe)
	if err != nil {
		c.forgetKey(key)
		return nil, c.openErr(ProtocolAuto, "server/discover", err, probe)
	}
	if modern {
		c.forgetKey(key)
		c.setEra(EraModern)
		o.Probe, o.Eras = probe, []Era{EraModern}
		return o, nil
	}
	return c.fallback(ctx, key, ch, probe)
}

// awaitProbe waits for the probe's answer without forgetting it at the
// deadline (a late answer still says the server is modern). The deadline
// is ProbeTimeout from the first sign that the server is up: any line it
// wrote, the HTTP transport's first answer, or opts.Ready; a server that
// shows none is given ProbeStartup from the sending.
func (c *Client) awaitProbe(ctx context.Context, ch chan response, opts OpenOptions) (json.RawMessage, error) {
	up := opts.Ready
	heard := c.heardCh()
	var reached <-chan struct{}
	if r, ok := c.w.(interface{ reached() <-chan struct{} }); ok {
		reached = r.reached()
	}
	startup := time.NewTimer(cmp.Or(opts.ProbeStartup, DefaultProbeStartup))
	defer startup.Stop()
	var deadline <-chan time.Time
	for {
		select {
		case r, ok := <-ch:
			return probeAnswer(r, ok)
		case <-up:
			up, heard, reached, deadline = nil, nil, nil, c.probeDeadline(deadline, opts)
		case <-heard:
			up, heard, reached, deadline = nil, nil, nil, c.probeDeadline(deadline, opts)
		case <-reached:
			up, heard, reached, deadline = nil, nil, nil, c.probeDeadline(deadline, opts)
		case <-deadline:
			return nil, context.DeadlineExceeded
		case <-startup.C:
			if deadline == nil {
				return nil, context.DeadlineExceeded
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Client) probeDeadline(cur <-chan time.Time, opts OpenOptions) <-chan time.Time {
	if cur != nil {
		return cur
	}
	return time.After(cmp.Or(opts.ProbeTimeout, DefaultProbeTimeout))
}

func probeAnswer(r response, ok bool) (json.RawMessage, error) {
	if !ok {
		return nil, ErrClosed
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}

// probeVerdict classifies the probe's outcome: modern (with the
// opening), fall back (modern false, no error), or fail.
func (c *Client) probeVerdict(raw json.RawMessage, err error, p *Probe) (*Opening, bool, error) {
	var rpc *RPCError
	switch {
	case err == nil:
		o, derr := ParseDiscover(raw)
		if derr != nil {
			p.Outcome, p.Detail = ProbeOtherError, truncate(derr.Error(), 300)
			return nil, false, nil
		}
		p.Outcome = ProbeDiscover
		if !slices.Contains(o.SupportedVersions, ProtocolModern) && len(o.SupportedVersions) > 0 {
			// A modern server with no revision in common: the 2025
			// handshake is the only one left to try.
			p.Detail = "supported versions: " + truncate(joinVersions(o.SupportedVersions), 200)
			return nil, false, nil
		}
		return o, true, nil
	case errors.Is(err, ErrClosed):
		return nil, false, err
	case errors.As(err, &rpc):
		p.Detail = truncate(rpc.Error(), 300)
		return c.probeRPCVerdict(rpc, p)
	case errors.Is(err, context.DeadlineExceeded):
		p.Outcome = ProbeTimeout
		return nil, false, nil
	}
	return nil, false, err
}

func (c *Client) probeRPCVerdict(rpc *RPCError, p *Probe) (*Opening, bool, error) {
	supported, modern := modernError(rpc)
	switch {
	case modern && slices.Contains(supported, ProtocolModern):
		// It rejected the very version it lists: nothing to correct to.
		p.Outcome = ProbeModernError
		return nil, false, rpc
	case modern && hasLegacy(supported):
		p.Outcome = ProbeModernError
		return nil, false, nil
	case modern:
		p.Outcome = ProbeModernError
		return nil, false, rpc
	case rpc.Code == CodeTransport && rpc.HTTPStatus != 0:
		// An HTTP answer without a modern error (400, 404, 405 from a
		// 2025-era endpoint, even a 500): the server is up and not modern.
		p.Outcome = ProbeHTTPStatus
		return nil, false, nil
	case rpc.Code == CodeTransport:
		// No HTTP answer at all (refused, reset): not era evidence.
		return nil, false, rpc
	}
	p.Outcome = ProbeOtherError
	return nil, false, nil
}
