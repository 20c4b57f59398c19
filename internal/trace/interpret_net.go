package trace

import (
	"regexp"
	"strconv"
	"strings"
)

// interpretSocket handles socket setup: creation, connect, bind, listen
// and accept. The socket type comes from the fd's -yy annotation, since
// the socket() call may predate the trace.
func interpretSocket(r *Record, a args) bool {
	switch r.Name {
	case "socket":
		r.Kind, r.Op = KindSocket, "socket"
		r.SockFamily = strings.TrimSpace(a.at(0))
		r.SockType = strings.Split(strings.TrimSpace(a.at(1)), "|")[0]
	case "connect", "bind":
		r.Kind, r.Op = KindNet, r.Name
		r.Addr = ParseSockAddr(a.at(1))
		r.SockType = socketTypeFromFD(a.at(0))
	case "listen":
		r.Kind, r.Op = KindNet, "listen"
		r.SockType = socketTypeFromFD(a.at(0))
	case "accept", "accept4":
		r.Kind, r.Op = KindNet, "accept"
	default:
		return false
	}
	return true
}

// interpretSend handles the send calls, keeping their buffers so DNS
// questions and canary values in them can be found.
func interpretSend(r *Record, a args) bool {
	switch r.Name {
	case "sendto":
		if b, t, ok := Unquote(a.at(1)); ok {
			r.Data, r.DataTrunc = [][]byte{b}, t
		}
		r.Addr = ParseSockAddr(a.at(4))
	case "sendmsg":
		r.parseMsghdr(a.at(1))
	case "sendmmsg":
		for _, m := range Elements(a.at(1)) {
			if hdr, ok := Field(m, "msg_hdr"); ok {
				r.parseMsghdr(hdr)
			}
		}
	default:
		return false
	}
	r.Kind, r.Op = KindNet, "send"
	r.SockType = socketTypeFromFD(a.at(0))
	return true
}

// parseMsghdr extracts the destination and payload of a struct msghdr.
func (r *Record) parseMsghdr(hdr string) {
	if name, ok := Field(hdr, "msg_name"); ok && r.Addr == nil {
		r.Addr = ParseSockAddr(name)
	}
	iov, _ := Field(hdr, "msg_iov")
	for _, el := range Elements(iov) {
		if base, ok := Field(el, "iov_base"); ok {
			if b, t, ok := Unquote(base); ok {
				r.Data = append(r.Data, b)
				r.DataTrunc = r.DataTrunc || t
			}
		}
	}
}

// socketTypeFromFD reads the -yy annotation of a socket fd: 18<TCP:[…]>,
// 18<UDP:[…]>, 18<UNIX-STREAM:[…]>, 18<socket:[1234]> (unconnected).
func socketTypeFromFD(arg string) string {
	ann, ok := Annotation(arg)
	if !ok {
		return ""
	}
	proto, _, _ := strings.Cut(ann, ":")
	switch {
	case proto == "TCP" || proto == "TCPv6":
		return "tcp"
	case proto == "UDP" || proto == "UDPv6":
		return "udp"
	case strings.HasPrefix(proto, "UNIX"):
		return "unix"
	case proto == "NETLINK":
		return "netlink"
	}
	return ""
}

var (
	// {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.10")}
	reInet = regexp.MustCompile(`inet_addr\("([0-9.]+)"\)`)
	// inet_pton(AF_INET6, "2001:db8::1", &sin6_addr)
	reInet6 = regexp.MustCompile(`inet_pton\(AF_INET6,\s*"([0-9a-fA-F:.]+)"`)
	// sin_port=htons(53) or sin6_port=htons(80)
	rePort = regexp.MustCompile(`port=htons\((\d+)\)`)
)

// ParseSockAddr decodes a sockaddr struct argument; nil if it is not one.
func ParseSockAddr(arg string) *SockAddr {
	arg = strings.TrimSpace(arg)
	if !strings.HasPrefix(arg, "{") {
		return nil
	}
	fam, ok := Field(arg, "sa_family")
	if !ok {
		return nil
	}
	sa := &SockAddr{Family: fam}
	switch fam {
	case "AF_INET":
		if m := reInet.FindStringSubmatch(arg); m != nil {
			sa.IP = m[1]
		}
	case "AF_INET6":
		if m := reInet6.FindStringSubmatch(arg); m != nil {
			sa.IP = m[1]
		}
	case "AF_UNIX":
		if p, ok := Field(arg, "sun_path"); ok {
			b, _, _ := Unquote(p)
			if strings.HasPrefix(p, "@") {
				sa.Path = "@" + string(b)
			} else {
				sa.Path = string(b)
			}
		}
	}
	if m := rePort.FindStringSubmatch(arg); m != nil {
		sa.Port, _ = strconv.Atoi(m[1])
	}
	return sa
}
