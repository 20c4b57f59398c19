package sink

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/miekg/dns"
)

// nameTable gives every name its own address from FakeNet and remembers
// which name an address stands for. In open mode it records real answers.
type nameTable struct {
	mu     sync.Mutex
	byName map[string]string
	byIP   map[string]string
	next   uint32
	// base is the answer range's first address; size its addresses.
	base uint32
	size uint32
}

func newNameTable() *nameTable { return newNameTableIn(sinklog.FakeNet) }

// newNameTableIn answers from cidr (an IPv4 range of /8 to /24; FakeNet
// when it is not one).
func newNameTableIn(cidr string) *nameTable {
	_, n, err := net.ParseCIDR(cidr)
	ones, bits := 0, 0
	if err == nil {
		ones, bits = n.Mask.Size()
	}
	if err != nil || n.IP.To4() == nil || bits != 32 || ones < 8 || ones > 24 {
		_, n, _ = net.ParseCIDR(sinklog.FakeNet)
		ones, _ = n.Mask.Size()
	}
	ip := n.IP.To4()
	return &nameTable{byName: map[string]string{}, byIP: map[string]string{}, next: 1,
		base: uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3]), size: 1 << (32 - ones)}
}

// fakeIP returns the address for name, allocating one on first use.
func (t *nameTable) fakeIP(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ip, ok := t.byName[name]; ok {
		return ip
	}
	// The range's addresses but its first and last; wrap around if
	// exhausted.
	n := t.next
	t.next++
	if t.next >= t.size-1 {
		t.next = 1
	}
	a := t.base + n
	ip := net.IPv4(byte(a>>24), byte(a>>16), byte(a>>8), byte(a)).String()
	t.byName[name] = ip
	t.byIP[ip] = name
	return ip
}

func (t *nameTable) remember(ip, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.byIP[ip]; !ok {
		t.byIP[ip] = name
	}
}

func (t *nameTable) nameOf(ip string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byIP[ip]
}

// serveDNS answers on UDP and TCP port 53 of every local address.
func (s *Sink) serveDNS() (func(), error) {
	h := dns.HandlerFunc(s.handleDNS)
	var servers []*dns.Server
	for _, netw := range []string{"udp4", "tcp4"} {
		started := make(chan error, 1)
		srv := &dns.Server{Addr: ":" + strconv.Itoa(sinklog.PortDNS), Net: netw, Handler: h,
			NotifyStartedFunc: func() { started <- nil }, ReadTimeout: 5 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil {
				select {
				case started <- err:
				default:
				}
			}
		}()
		if err := <-started; err != nil {
			return nil, fmt.Errorf("starting DNS on %s: %w", netw, err)
		}
		servers = append(servers, srv)
	}
	return func() {
		for _, srv := range servers {
			srv.Shutdown()
		}
	}, nil
}

func (s *Sink) handleDNS(w dns.ResponseWriter, req *dns.Msg) {
	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	if s.cfg.Mode == "open" && s.cfg.Upstream != "" {
		s.forward(w, req)
		return
	}
	for i, q := range req.Question {
		if i == 8 {
			break
		}
		name := strings.ToLower(strings.TrimSuffix(q.Name, "."))
		ev := sinklog.Event{Kind: sinklog.KindDNS, Name: textsafe.Valid(name, 253), QType: dns.TypeToString[q.Qtype], Src: w.RemoteAddr().String()}
		if ev.QType == "" {
			ev.QType = "TYPE" + strconv.Itoa(int(q.Qtype))
		}
		switch {
		case !resolvable(name, s.cfg.Answer):
			// As a real resolver would: a sinkhole that answered
			// nx-probe.invalid would give itself away.
			resp.Rcode = dns.RcodeNameError
			ev.Error = "nxdomain"
		case q.Qtype == dns.TypeA && q.Qclass == dns.ClassINET:
			ip := s.names.fakeIP(name)
			resp.Answer = append(resp.Answer, &dns.A{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
				A:   net.ParseIP(ip).To4(),
			})
			ev.Answer = []string{ip}
		}
		s.log.Emit(ev)
	}
	w.WriteMsg(resp)
}

// forward sends the query to the real resolver (open mode) and records the
// question and the addresses in the answer, so connections in the trace
// map back to names.
func (s *Sink) forward(w dns.ResponseWriter, req *dns.Msg) {
	c := &dns.Client{Timeout: 5 * time.Second}
	resp, _, err := c.Exchange(req, s.cfg.Upstream)
	for _, q := range req.Question {
		name := strings.ToLower(strings.TrimSuffix(q.Name, "."))
		ev := sinklog.Event{Kind: sinklog.KindDNS, Name: textsafe.Valid(name, 253), QType: dns.TypeToString[q.Qtype], Src: w.RemoteAddr().String()}
		if err != nil {
			ev.Error = textsafe.Valid(err.Error(), 200)
		} else {
			for _, rr := range resp.Answer {
				switch a := rr.(type) {
				case *dns.A:
					ev.Answer = append(ev.Answer, a.A.String())
					s.names.remember(a.A.String(), name)
				case *dns.AAAA:
					ev.Answer = append(ev.Answer, a.AAAA.String())
					s.names.remember(a.AAAA.String(), name)
				}
			}
		}
		s.log.Emit(ev)
	}
	if err != nil {
		m := new(dns.Msg)
		m.SetRcode(req, dns.RcodeServerFailure)
		w.WriteMsg(m)
		return
	}
	w.WriteMsg(resp)
}
