package classify

import (
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// A UDP socket bound to a port and then connected is a client that chose
// its source port (Chromium's and other resolvers' DNS client bind to a
// random port on every address, then connect to the resolver): once
// connected, the kernel delivers it only its peer's datagrams, so it is no
// door into the machine. Such a bind is held until the socket is connected
// or the trace ends; connected within bindConnectWindow of the bind, it is
// not listed as a listener. A socket left bound longer (or never
// connected) could have taken anyone's datagrams meanwhile and stays a
// listener, so the window bounds what a server gains by connecting a
// listener later.
const bindConnectWindow = time.Second

// heldBind is a successful UDP bind not yet judged.
type heldBind struct {
	p    *phaseAcc
	conn m.Connection
	t    time.Time
	// client: the socket was connected in time; judged: either way.
	client, judged bool
}

func (c *classifier) holdBind(p *phaseAcc, info *sockInfo, conn m.Connection, t time.Time) {
	info.held.connected(time.Time{}, false) // a second bind: the first is judged as it stands
	h := &heldBind{p: p, conn: conn, t: t}
	info.held = h
	c.held = append(c.held, h)
}

// connected judges a held bind when a connect of its socket returned at t
// (ok: it succeeded; a failed connect leaves the socket unconnected).
func (h *heldBind) connected(t time.Time, ok bool) {
	if h == nil || h.judged {
		return
	}
	h.judged = true
	h.client = ok && !t.Before(h.t) && t.Sub(h.t) <= bindConnectWindow
}

// flushBinds lists every held bind that was not a client's.
func (c *classifier) flushBinds() {
	for _, h := range c.held {
		if !h.client {
			h.p.Network = append(h.p.Network, h.conn)
		}
	}
}
