package classify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// Bounds on the streams reassembled on the host: DNS names joined per
// registrable domain (distinct names and bytes of labels each), and
// connections and UDP sockets followed. Past them, names and data are
// still searched one by one, only not joined.
const (
	maxJoinDomains = 1024
	maxJoinNames   = 4096
	maxJoinBytes   = 64 << 10
	maxStreams     = 4096
)

// dnsJoin is the labels of the names asked under one registrable domain,
// in query order: all labels below the domain (all), and the first label
// of each name (first), which skips the fixed labels of "<piece>.x.domain"
// between the pieces. A name equal to one of the last joinRecent joined
// is a retry or the AAAA twin of a lookup and adds nothing.
type dnsJoin struct {
	all, first *canary.Stream
	recent     []string
	names      int
	bytes      int
}

const joinRecent = 2

// byteStream follows one connection or socket.
type byteStream struct {
	stream *canary.Stream
	phase  *phaseAcc // of the last write, for what Close finds
	where  string
}

// dnsCanaries searches one name asked of a resolver: its labels with and
// without the dots between them (one search, so a value split by dots is
// reported by its own encoding), then the labels of every name asked under
// the same registrable domain so far, joined in query order (a value cut
// into pieces too short to recognize, one piece per query).
func (c *classifier) dnsCanaries(p *phaseAcc, name string) {
	whole := c.finder.FindString(strings.ReplaceAll(name, ".", "") + "\n" + name)
	own := map[string]bool{}
	for _, h := range whole {
		own[h.Canary] = true
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: "dns " + name, Encoding: h.Encoding})
	}
	reg := hosts.Registrable(name)
	sub, ok := strings.CutSuffix(name, "."+reg)
	if !ok || sub == "" {
		return
	}
	j := c.joins[reg]
	if j == nil {
		if len(c.joins) >= maxJoinDomains {
			return
		}
		j = &dnsJoin{all: c.finder.Stream(), first: c.finder.Stream()}
		c.joins[reg] = j
	}
	if slices.Contains(j.recent, name) || j.names >= maxJoinNames || j.bytes >= maxJoinBytes {
		return
	}
	if j.recent = append(j.recent, name); len(j.recent) > joinRecent {
		j.recent = j.recent[1:]
	}
	j.names++
	labels := strings.ReplaceAll(sub, ".", "")
	first, _, _ := strings.Cut(sub, ".")
	j.bytes += len(labels)
	hits := append(j.all.Write([]byte(labels)), j.first.Write([]byte(first))...)
	reported := map[canary.Hit]bool{}
	for _, h := range hits {
		if own[h.Canary] || reported[h] {
			continue
		}
		reported[h] = true
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Encoding: h.Encoding,
			Evidence: fmt.Sprintf("dns *.%s (labels of %d names joined in query order)", reg, j.names)})
	}
}

// streamWrite searches one more piece of a connection or socket together
// with the end of the pieces before it.
func (c *classifier) streamWrite(key string, p *phaseAcc, where string, data []byte) {
	s := c.streams[key]
	if s == nil {
		if len(c.streams) >= maxStreams {
			c.canaryScan(p, data, where)
			return
		}
		s = &byteStream{stream: c.finder.Stream()}
		c.streams[key] = s
		c.streamOrder = append(c.streamOrder, key)
	}
	s.phase, s.where = p, where
	for _, h := range s.stream.Write(data) {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: where, Encoding: h.Encoding})
	}
}

// closeStreams searches the streams that began compressed, decompressed
// whole, in the order they began.
func (c *classifier) closeStreams() {
	for _, key := range c.streamOrder {
		s := c.streams[key]
		for _, h := range s.stream.Close() {
			s.phase.Canaries = append(s.phase.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: s.where, Encoding: h.Encoding})
		}
	}
}

// sinkData searches more of a TCP stream the sink did not understand.
func (c *classifier) sinkData(p *phaseAcc, tc *traceConn, conn sinklog.Event, e sinklog.Event, t time.Time) {
	where := fmt.Sprintf("tcp %s:%d", orStr(conn.Name, conn.DstIP), conn.Port)
	c.streamWrite(fmt.Sprintf("tcp %d", e.ID), p, where, e.Data)
	if tc != nil {
		c.evidence = append(c.evidence, c.rawEvidence(tc, "tcp", e.Data, t))
	}
}
