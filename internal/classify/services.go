package classify

import (
	"fmt"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// payload searches one message a client sent to one of the sink's
// service fakes (a query, a command, a login, a mail) for canaries the
// way an HTTP request is searched: the message as part of its
// connection's stream (a value split across queries is found whole), the
// user it logged in as, and the password it sent, which the evidence
// file masks like a secret header unless it is a canary.
func (c *classifier) payload(p *phaseAcc, tc *traceConn, conn sinklog.Event, e sinklog.Event, t time.Time) {
	where := fmt.Sprintf("%s %s %s:%d", e.Service, e.Op, orStr(orStr(conn.Name, conn.DstIP), orStr(e.Name, e.DstIP)), orInt(conn.Port, e.Port))
	if len(e.Data) > 0 {
		c.streamWrite(fmt.Sprintf("svc %d", e.ID), p, where, e.Data)
	}
	var found []string
	for _, f := range []struct {
		what  string
		value string
	}{{"user", e.User}, {"password", string(e.Secret)}} {
		if f.value == "" {
			continue
		}
		for _, h := range c.finder.FindString(f.value) {
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: where + " (" + f.what + ")", Encoding: h.Encoding})
			found = append(found, h.Canary+" ("+h.Encoding+", "+f.what+")")
		}
	}
	ev := Evidence{Phase: p.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: e.Service, Method: e.Op,
		Name: orStr(conn.Name, e.Name), Port: orInt(conn.Port, e.Port), SNI: conn.SNI, BodyLen: int64(e.Length),
		Truncated: e.Length > len(e.Data), Canaries: found}
	if tc != nil {
		ev.Process, ev.TraceLine, ev.Address = tc.conn.Process, tc.seq, tc.conn.Address
	}
	if e.User != "" {
		ev.Headers = append(ev.Headers, [2]string{"user", c.redact(e.User)})
	}
	if len(e.Secret) > 0 {
		ev.Headers = append(ev.Headers, [2]string{"password", c.maskHeader("password", string(e.Secret))})
	}
	ev.Body, ev.Encoding = c.encodeBody(e.Data)
	c.evidence = append(c.evidence, ev)
}

func orInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}
