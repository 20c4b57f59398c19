package cli

import (
	"fmt"
	"runtime"

	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// sandboxCommands run servers in the Docker sandbox (or are its network
// sink); the sandbox needs Linux: strace, seccomp, network namespaces and
// nftables. The other commands (diff, report, export, merge, publish,
// discover, ...) work on manifests and registries and run anywhere.
var sandboxCommands = map[string]bool{
	"audit": true, "sink": true, "action": true, "check": true, "batch": true, "image": true, "cleanup": true,
}

// linuxOnly refuses a sandbox command on another system with a clear
// message instead of an engine or kernel error later.
func linuxOnly(goos, name string) error {
	if goos == "linux" || !sandboxCommands[name] {
		return nil
	}
	return fmt.Errorf("%w: mcp-audit %s runs MCP servers in a Linux sandbox (strace, seccomp, network namespaces) and is available only on Linux; on %s use diff, report and export on manifests audited on Linux", verdict.ErrUsage, name, goos)
}

// hostOS is the system this build runs on; tests replace it.
var hostOS = runtime.GOOS
