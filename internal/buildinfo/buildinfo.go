// Package buildinfo is the one place that knows which mcp-audit this is:
// the version stamped at build time (release builds set it with
// -ldflags "-X github.com/mcp-audit/mcp-audit/internal/buildinfo.version=v1.2.3"),
// or else the module version and VCS revision Go recorded.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// version is set by release builds.
var version string

// Version is the semantic version of this build ("v1.2.3"), or the module
// version plus the first 12 digits of the VCS revision for other builds
// ("(devel)+0123456789ab").
func Version() string {
	if version != "" {
		return version
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, "+") {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// Tool names this build in manifests and reports: "mcp-audit VERSION".
func Tool() string { return "mcp-audit " + Version() }
