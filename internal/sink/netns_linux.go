//go:build linux

package sink

import (
	"fmt"
	"net"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// setupSinkhole makes every IPv4 destination local and redirects the
// traffic of unprivileged sockets to the sink's listeners:
//
//	ip route add local default dev lo table local
//	nft add table ip mcpaudit
//	nft add chain ip mcpaudit out { type nat hook output priority -100; }
//	nft add rule ip mcpaudit out meta skuid 0 return
//	nft add rule ip mcpaudit out ip daddr 127.0.0.0/8 return
//	nft add rule ip mcpaudit out udp dport 53 redirect to :53
//	nft add rule ip mcpaudit out meta l4proto tcp redirect to :15001
//	nft add rule ip mcpaudit out meta l4proto udp redirect to :15002
//
// Without the local route, connect fails with ENETUNREACH before netfilter
// sees the packet. Root's sockets (the sink itself) are exempt.
func setupSinkhole() error {
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("finding lo: %w", err)
	}
	if err := netlink.LinkSetUp(lo); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	err = netlink.RouteAdd(&netlink.Route{
		LinkIndex: lo.Attrs().Index,
		Dst:       &net.IPNet{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)},
		Type:      unix.RTN_LOCAL,
		Table:     unix.RT_TABLE_LOCAL,
		Scope:     netlink.SCOPE_HOST,
	})
	if err != nil {
		return fmt.Errorf("adding local default route: %w", err)
	}
	return installRules(true)
}

// setupOpen redirects only DNS (to the logging forwarder); everything else
// goes out for real.
func setupOpen() error { return installRules(false) }

func installRules(all bool) error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("opening nftables: %w", err)
	}
	t := c.AddTable(&nftables.Table{Family: nftables.TableFamilyIPv4, Name: "mcpaudit"})
	ch := c.AddChain(&nftables.Chain{
		Name: "out", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityNATDest,
	})
	add := func(e ...expr.Any) { c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: e}) }
	ret := &expr.Verdict{Kind: expr.VerdictReturn}
	// meta skuid 0 return
	add(&expr.Meta{Key: expr.MetaKeySKUID, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)}, ret)
	// ip daddr 127.0.0.0/8 return
	add(&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: []byte{255, 0, 0, 0}, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{127, 0, 0, 0}}, ret)
	redirect := func(proto byte, dport int, to uint16) {
		e := []expr.Any{
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proto}},
		}
		if dport > 0 {
			e = append(e,
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(uint16(dport))})
		}
		e = append(e,
			&expr.Immediate{Register: 1, Data: binaryutil.BigEndian.PutUint16(to)},
			&expr.Redir{RegisterProtoMin: 1})
		add(e...)
	}
	redirect(unix.IPPROTO_UDP, 53, sinklog.PortDNS)
	redirect(unix.IPPROTO_TCP, 53, sinklog.PortDNS)
	if all {
		redirect(unix.IPPROTO_TCP, 0, sinklog.PortTCP)
		redirect(unix.IPPROTO_UDP, 0, sinklog.PortUDP)
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("installing nftables rules: %w", err)
	}
	return nil
}

// originalDst returns the destination a redirected TCP connection was
// aimed at (SO_ORIGINAL_DST).
func originalDst(conn *net.TCPConn) (*net.TCPAddr, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var addr *net.TCPAddr
	var serr error
	err = raw.Control(func(fd uintptr) {
		// struct sockaddr_in comes back in the first 16 bytes of an
		// IPv6Mreq-sized buffer.
		m, e := unix.GetsockoptIPv6Mreq(int(fd), unix.IPPROTO_IP, 80 /* SO_ORIGINAL_DST */)
		if e != nil {
			serr = e
			return
		}
		b := m.Multiaddr
		addr = &net.TCPAddr{IP: net.IPv4(b[4], b[5], b[6], b[7]), Port: int(b[2])<<8 | int(b[3])}
	})
	if err != nil {
		return nil, err
	}
	return addr, serr
}
