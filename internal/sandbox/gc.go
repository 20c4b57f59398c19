package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"
)

// GC removes sandbox containers left behind by an mcp-audit process that no
// longer runs (killed, crashed) or whose deadline has passed. It returns
// how many it removed. Containers of live mcp-audit processes are kept.
func GC(ctx context.Context, e Engine) (int, error) {
	res, err := e.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelApp+"=1")})
	if err != nil {
		return 0, fmt.Errorf("listing sandbox containers: %w", err)
	}
	host, _ := os.Hostname()
	removed := 0
	for _, c := range res.Items {
		if !stale(c.Labels, host, time.Now()) {
			continue
		}
		if _, err := e.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err == nil {
			removed++
		}
	}
	return removed, nil
}

// stale decides whether a labeled container may be removed.
func stale(labels map[string]string, host string, now time.Time) bool {
	if d, err := strconv.ParseInt(labels[LabelDeadline], 10, 64); err == nil && now.Unix() > d {
		return true
	}
	h, p, ok := strings.Cut(labels[LabelOwner], ":")
	if !ok || h != host {
		return false // another machine's mcp-audit sharing this engine; wait for its deadline
	}
	pid, err := strconv.Atoi(p)
	if err != nil {
		return true
	}
	return !processAlive(pid)
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
