package mcpclient

import (
	"context"
	"errors"
	"slices"
)

// fallback performs the 2025 handshake after a probe that was not modern
// evidence. The probe's answer may still arrive while initialize is under
// way (a server slower than the probe deadline): a late discover result or
// modern error marks the server as modern-capable (Probe.Late). A
// modern-only server answers initialize with the unsupported-version error
// naming 2026-07-28; the session then opens in the modern era.
func (c *Client) fallback(ctx context.Context, key string, probeCh chan response, probe Probe) (*Opening, error) {
	r, raw, err := c.initialize(ctx)
	lateModern := c.lateProbe(key, probeCh)
	if lateModern {
		probe.Late = true
	}
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			if s, ok := modernError(rpc); ok && slices.Contains(s, ProtocolModern) {
				// Modern after all: its probe answer is late, or still to
				// come (an SDK v2 server refuses initialize before it has
				// built the instance that answers the probe).
				probe.Late = probe.Late || probe.Outcome == ProbeTimeout
				return c.reopenModern(ctx, probe)
			}
		}
		return nil, c.openErr(ProtocolAuto, "initialize", err, probe)
	}
	c.setEra(EraLegacy)
	o := openingFromInitialize(r, raw)
	if lateModern {
		o.Eras = append(o.Eras, EraModern)
	}
	o.Probe = probe
	return o, nil
}

// reopenModern opens modern after initialize was refused in its favour.
func (c *Client) reopenModern(ctx context.Context, probe Probe) (*Opening, error) {
	o, err := c.openModern(ctx, nil)
	if err != nil {
		return nil, c.openErr(ProtocolAuto, "server/discover", err, probe)
	}
	o.Probe = probe
	return o, nil
}

// lateProbe reports whether the probe was answered, by now, with a
// result or a modern error, and stops waiting for it.
func (c *Client) lateProbe(key string, ch chan response) bool {
	c.forgetKey(key)
	select {
	case r, ok := <-ch:
		if !ok {
			return false
		}
		if r.err == nil {
			return true
		}
		_, modern := modernError(r.err)
		return modern
	default:
		return false
	}
}
