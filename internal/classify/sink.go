package classify

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// traceConn is a TCP connect from the trace, waiting to be matched with
// what the sink saw of it.
type traceConn struct {
	conn    m.Connection
	ip      string
	port    int
	t       time.Time
	seq     int
	phase   *phaseAcc
	matched bool
}

// sinkTime converts the sink's float Unix seconds.
func sinkTime(f float64) time.Time {
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9))
}

// namesFromSink maps addresses to the names they were answered for.
func (c *classifier) namesFromSink() {
	for _, e := range c.in.Sink {
		if e.Kind != sinklog.KindDNS {
			continue
		}
		for _, a := range e.Answer {
			if _, ok := c.names[a]; !ok && e.Name != "" {
				c.names[a] = e.Name
			}
		}
	}
}

// mergeSink folds the sink's log into the phases: DNS questions only the
// sink saw, what each TCP connection carried, HTTP requests, UDP payloads.
func (c *classifier) mergeSink() {
	evs := slices.Clone(c.in.Sink)
	slices.SortStableFunc(evs, func(a, b sinklog.Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	byID := map[int]*traceConn{}
	sinkConn := map[int]sinklog.Event{}
	for _, e := range evs {
		t := sinkTime(e.Time)
		p := c.phaseAt(t)
		switch e.Kind {
		case sinklog.KindDNS:
			c.sinkDNS(p, e)
		case sinklog.KindTCP:
			sinkConn[e.ID] = e
			byID[e.ID] = c.sinkTCP(p, e, t)
		case sinklog.KindHTTP:
			tc := byID[e.ID]
			conn := sinkConn[e.ID]
			for _, r := range e.Requests {
				c.request(p, tc, conn, r, t)
			}
		case sinklog.KindData:
			c.sinkData(p, byID[e.ID], sinkConn[e.ID], e, t)
		case sinklog.KindPayload:
			c.payload(p, byID[e.ID], sinkConn[e.ID], e, t)
		case sinklog.KindUDP:
			c.udp(p, e, t)
		}
	}
	c.closeStreams()
	for _, tc := range c.tcp {
		tc.phase.Network = append(tc.phase.Network, tc.conn)
	}
}

// sinkDNS records a question the sink answered, unless the trace already
// showed it, and scans the name for canary values smuggled in labels.
func (c *classifier) sinkDNS(p *phaseAcc, e sinklog.Event) {
	if e.Name == "" {
		return
	}
	seen := false
	for _, ph := range c.phases {
		for _, d := range ph.DNS {
			seen = seen || d.Name == e.Name && d.Type == e.QType
		}
	}
	if !seen {
		p.DNS = append(p.DNS, m.DNSQuery{Name: e.Name, Type: e.QType, AfterAnswer: p.afterAnswer(sinkTime(e.Time))})
	}
	c.dnsCanaries(p, e.Name)
}

// sinkTCP completes the traced connect the sink's connection belongs to
// with its protocol and first bytes, or adds the connection when the trace
// missed it.
func (c *classifier) sinkTCP(p *phaseAcc, e sinklog.Event, t time.Time) *traceConn {
	tc := c.matchConn(e, t)
	if tc == nil {
		// The sink saw a connection the tracer did not.
		conn := m.Connection{Proto: "tcp", Op: "connect", Name: e.Name, Port: e.Port, Result: m.ResultOK, Category: m.ConnEgress,
			AfterAnswer: p.afterAnswer(t)}
		if !c.isFake(e.DstIP) {
			conn.Address = e.DstIP
		}
		tc = &traceConn{conn: conn, phase: p, matched: true}
		c.tcp = append(c.tcp, tc)
		if !c.in.TraceTruncated {
			p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertUntracedNetwork,
				Detail: fmt.Sprintf("the sink saw a connection to %s:%d with no traced connect", orStr(e.Name, conn.Address), e.Port)})
		}
	}
	tc.conn.Protocol, tc.conn.SNI, tc.conn.TLS = e.Proto, e.SNI, e.TLS
	tc.conn.ALPN = strings.Join(e.ALPN, ",")
	if len(e.First) > 0 {
		ev := fmt.Sprintf("tcp %s:%d", orStr(e.Name, e.DstIP), e.Port)
		c.streamWrite(fmt.Sprintf("tcp %d", e.ID), tc.phase, ev, e.First)
		c.evidence = append(c.evidence, c.rawEvidence(tc, "tcp", e.First, t))
	}
	return tc
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// matchConn pairs a sink connection with the earliest unmatched traced
// connect to the same address and port that started before it.
func (c *classifier) matchConn(e sinklog.Event, t time.Time) *traceConn {
	var best *traceConn
	for _, tc := range c.tcp {
		if tc.matched || tc.ip != e.DstIP || tc.port != e.Port || tc.t.After(t.Add(time.Second)) {
			continue
		}
		if best == nil || tc.t.Before(best.t) {
			best = tc
		}
	}
	if best != nil {
		best.matched = true
	}
	return best
}

// udp records a datagram the sink received, named by the traced send that
// carried the same bytes.
func (c *classifier) udp(p *phaseAcc, e sinklog.Event, t time.Time) {
	// The destination of a redirected datagram is only in the trace: find
	// the traced send carrying the same bytes.
	where := "udp datagram (destination not traced)"
	for _, s := range c.udpSends {
		if len(s.data) > 0 && bytes.HasPrefix(e.Data, s.data[:min(len(s.data), len(e.Data))]) {
			where = s.where
			break
		}
	}
	// Datagrams of one socket are searched as one stream: a value cut
	// across datagrams is found whole.
	c.streamWrite("udp "+e.Src+" "+where, p, where, e.Data)
	body, enc := c.encodeBody(e.Data)
	c.evidence = append(c.evidence, Evidence{Phase: p.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: "udp",
		Address: strings.TrimPrefix(where, "udp "), Body: body, Encoding: enc, BodyLen: int64(e.Length)})
}
