package classify

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// sockInfo is what the trace has shown of one socket fd.
type sockInfo struct {
	family string
	proto  string
	peer   *trace.SockAddr
	bound  *trace.SockAddr
	// held is a UDP bind waiting to be judged (see holdBind).
	held *heldBind
}

// table is the socket fd table of a pid.
func (c *classifier) table(pid int) map[int]*sockInfo {
	t := c.fds[pid]
	if t == nil {
		t = map[int]*sockInfo{}
		c.fds[pid] = t
	}
	return t
}

// socket records a new socket fd, so later calls on it know its family
// and protocol.
func (c *classifier) socket(r trace.Record) {
	if r.RetKnown && r.RetVal >= 0 {
		c.table(r.PID)[int(r.RetVal)] = &sockInfo{family: r.SockFamily, proto: protoOf(r.SockType)}
	}
}

func fdArg(r trace.Record) int {
	if len(r.Args) == 0 {
		return -1
	}
	s := r.Args[0]
	if i := strings.IndexByte(s, '<'); i > 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

func protoOf(sockType string) string {
	switch sockType {
	case "SOCK_STREAM", "tcp":
		return "tcp"
	case "SOCK_DGRAM", "udp":
		return "udp"
	case "SOCK_RAW", "SOCK_PACKET":
		return "raw"
	case "unix":
		return "unix"
	}
	return ""
}

func netResult(r trace.Record) string {
	switch {
	case r.Incomplete:
		return "pending"
	case !r.Failed():
		return m.ResultOK
	}
	switch r.Errno {
	case "EINPROGRESS", "EALREADY", "EAGAIN":
		return "in-progress"
	case "ECONNREFUSED":
		return "refused"
	case "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "ENETDOWN", "ETIMEDOUT":
		return "unreachable"
	case "ENOENT":
		return m.ResultMissing
	case "EACCES", "EPERM":
		return m.ResultDenied
	}
	return m.ResultError
}

// net records connect, bind, listen and send calls.
func (c *classifier) net(p *phaseAcc, r trace.Record) {
	fd := fdArg(r)
	info := c.table(r.PID)[fd]
	if info == nil {
		info = &sockInfo{}
		if fd >= 0 {
			c.table(r.PID)[fd] = info
		}
	}
	if pr := protoOf(r.SockType); pr != "" {
		info.proto = pr
	}
	switch r.Op {
	case "connect":
		if r.Addr == nil {
			return
		}
		info.peer = r.Addr
		if r.Addr.Family == "AF_UNSPEC" {
			return // disconnect
		}
		info.held.connected(r.Time, !r.Failed() && !r.Incomplete)
		c.addConn(p, r, info, "connect", r.Addr, netResult(r))
	case "bind":
		if r.Addr == nil {
			return
		}
		info.bound = r.Addr
		if r.Addr.Family == "AF_UNIX" || r.Addr.Port != 0 {
			c.addConn(p, r, info, "bind", r.Addr, netResult(r))
		}
	case "listen":
		addr := info.bound
		if addr == nil {
			addr = &trace.SockAddr{Family: info.family}
		}
		c.addConn(p, r, info, "listen", addr, netResult(r))
	case "send":
		c.send(p, r, info)
	}
}

// send records a datagram or stream write: DNS questions are decoded,
// other payloads scanned for canary values.
func (c *classifier) send(p *phaseAcc, r trace.Record, info *sockInfo) {
	dst := r.Addr
	if dst == nil {
		dst = info.peer
	}
	if dst == nil {
		return
	}
	proto := info.proto
	if proto == "" {
		proto = "udp"
	}
	data := r.Data
	if dst.Port == 53 && (proto == "udp" || proto == "tcp") {
		for _, d := range data {
			if proto == "tcp" && len(d) > 2 {
				d = d[2:]
			}
			for _, q := range decodeDNSQuestions(d) {
				p.DNS = append(p.DNS, m.DNSQuery{Name: q.name, Type: q.qtype, Server: dst.IP, Process: c.processOf(r.PID),
					AfterAnswer: p.afterAnswer(r.Time)})
				c.dnsCanaries(p, q.name)
			}
		}
		return
	}
	if r.Addr != nil {
		c.addConn(p, r, info, "send", dst, netResult(r))
	}
	where := fmt.Sprintf("%s %s", proto, c.endpointName(dst))
	if proto == "udp" {
		c.noteUDP(r, where)
	}
	for _, d := range data {
		c.canaryScan(p, d, where)
	}
}

func endpoint(a *trace.SockAddr) string {
	if a.Path != "" {
		return a.Path
	}
	if strings.Contains(a.IP, ":") {
		return fmt.Sprintf("[%s]:%d", a.IP, a.Port)
	}
	return fmt.Sprintf("%s:%d", a.IP, a.Port)
}

var sensitiveSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd", "/var/run/dbus",
	"/run/dbus", "/run/user", "/tmp/ssh-"}

func (c *classifier) endpointName(a *trace.SockAddr) string {
	if n := c.names[a.IP]; n != "" {
		return fmt.Sprintf("%s:%d", n, a.Port)
	}
	return endpoint(a)
}

var fakeNet = func() *net.IPNet { _, n, _ := net.ParseCIDR(sinklog.FakeNet); return n }()

// isFake reports whether an address is one the sink's resolver made up
// (from its answer range, Input.AnswerNet, or the default's).
func (c *classifier) isFake(ip string) bool {
	p := net.ParseIP(ip)
	if p == nil {
		return false
	}
	if c.in.AnswerNet != "" {
		if _, n, err := net.ParseCIDR(c.in.AnswerNet); err == nil && n.Contains(p) {
			return true
		}
	}
	return fakeNet.Contains(p)
}

// addConn lists a connection in its phase, in a category. TCP connects
// the sink saw wait for mergeSink to add what they carried.
func (c *classifier) addConn(p *phaseAcc, r trace.Record, info *sockInfo, op string, a *trace.SockAddr, res string) {
	conn := m.Connection{Op: op, Result: res, Proto: info.proto, Process: c.processOf(r.PID), AfterAnswer: p.afterAnswer(r.Time)}
	switch a.Family {
	case "AF_UNIX":
		conn.Proto = "unix"
		conn.Address = c.in.Layout.Normalize(a.Path)
		switch {
		case a.Path == "/var/run/nscd/socket" || a.Path == "/run/nscd/socket":
			conn.Category = m.ConnRuntime
		case matchAny(a.Path, sensitiveSockets) || strings.HasPrefix(a.Path, "/tmp/ssh-"):
			conn.Category = m.ConnSensitive
		default:
			conn.Category = m.ConnIPC
		}
	case "AF_INET", "AF_INET6":
		if conn.Proto == "" {
			conn.Proto = "tcp"
		}
		conn.Address, conn.Port = a.IP, a.Port
		conn.Name = c.names[a.IP]
		if c.isFake(a.IP) {
			conn.Address = "" // synthetic; depends on lookup order
		}
		switch {
		case a.Port == 53 && slices.Contains(c.in.Resolvers, a.IP):
			conn.Category = m.ConnDNS
		case strings.HasPrefix(a.IP, "127.") || a.IP == "::1" || a.IP == "0.0.0.0" || a.IP == "::":
			conn.Category = m.ConnLoopback
		default:
			conn.Category = m.ConnEgress
		}
		if op == "bind" || op == "listen" {
			conn.Category = m.ConnListener
		}
		if op == "connect" && conn.Proto == "udp" && conn.Category == m.ConnEgress && res == "unreachable" {
			conn.Category = m.ConnNoRoute
		}
		if op == "bind" && conn.Proto == "udp" && res == m.ResultOK {
			c.holdBind(p, info, conn, r.Time)
			return
		}
	case "AF_NETLINK":
		return // interface enumeration by the runtime
	case "AF_PACKET":
		conn.Proto, conn.Address, conn.Category = "raw", "packet", m.ConnEgress
	default:
		if a.Family == "" {
			return
		}
		conn.Proto, conn.Address, conn.Category = "other", a.Family, m.ConnEgress
	}
	if conn.Proto == "tcp" && op == "connect" && len(c.in.Sink) > 0 && conn.Category != m.ConnLoopback {
		// Completed in mergeSink with what the sink saw of it.
		c.tcp = append(c.tcp, &traceConn{conn: conn, ip: a.IP, port: a.Port, t: r.Time, seq: r.Seq, phase: p})
		return
	}
	p.Network = append(p.Network, conn)
}

// udpSend is a traced datagram, for finding the destination of what the
// sink received.
type udpSend struct {
	data  []byte
	where string
}

// noteUDP remembers a traced UDP send.
func (c *classifier) noteUDP(r trace.Record, where string) {
	for _, d := range r.Data {
		if len(c.udpSends) < 10000 {
			c.udpSends = append(c.udpSends, udpSend{data: d, where: where})
		}
	}
}
