package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// listenForInstall opens the registry gate's listener where the install
// container can reach it. Normally that is the host's end of the install
// network's bridge. When mcp-audit itself runs in a container (the GitHub
// Action, with the engine's socket), that address is not in its network
// namespace: mcp-audit then joins the install network itself and listens
// on its own address there. The returned function undoes the join.
func (p *PackageInstaller) listenForInstall(ctx context.Context, netID, gateway string) (net.Listener, func(), error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(gateway, "0"))
	if err == nil {
		return ln, func() {}, nil
	}
	self := ownContainer(ctx, p.Engine)
	if self == "" {
		return nil, nil, fmt.Errorf("listening for the install container on %s (mcp-audit runs neither beside the engine nor in one of its containers): %w", gateway, err)
	}
	if _, cerr := p.Engine.NetworkConnect(ctx, netID, client.NetworkConnectOptions{Container: self}); cerr != nil {
		return nil, nil, fmt.Errorf("joining the install network from container %s: %w", shortID(self), cerr)
	}
	leave := func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		p.Engine.NetworkDisconnect(dctx, netID, client.NetworkDisconnectOptions{Container: self, Force: true})
	}
	ins, ierr := p.Engine.NetworkInspect(ctx, netID, client.NetworkInspectOptions{})
	if ierr != nil {
		leave()
		return nil, nil, fmt.Errorf("inspecting the install network: %w", ierr)
	}
	for id, ep := range ins.Network.Containers {
		if id == self && ep.IPv4Address.IsValid() {
			ln, err := net.Listen("tcp", net.JoinHostPort(ep.IPv4Address.Addr().String(), "0"))
			if err != nil {
				leave()
				return nil, nil, fmt.Errorf("listening on the install network: %w", err)
			}
			return ln, leave, nil
		}
	}
	leave()
	return nil, nil, errors.New("no address of this container on the install network")
}

var reContainerPath = regexp.MustCompile(`/containers/([0-9a-f]{64})/`)

// ownContainer is the id of the container this process runs in, if the
// engine knows it: from the engine-managed mounts (hostname, resolv.conf)
// in /proc/self/mountinfo, else from the hostname, which the engine sets
// to the short id.
func ownContainer(ctx context.Context, e Engine) string {
	var candidates []string
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		if m := reContainerPath.FindSubmatch(b); m != nil {
			candidates = append(candidates, string(m[1]))
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		candidates = append(candidates, h)
	}
	for _, c := range candidates {
		res, err := e.ContainerInspect(ctx, c, client.ContainerInspectOptions{})
		if err == nil && strings.HasPrefix(res.Container.ID, c) {
			return res.Container.ID
		}
	}
	return ""
}
