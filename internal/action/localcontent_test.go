package action

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestChangedServersLocalContent: a pull request that changes only the
// files of a local directory or tarball server, not mcp-audit.yml, changes
// that server; an untouched local server is not checked.
func TestChangedServersLocalContent(t *testing.T) {
	cfg := "servers:\n  dir:\n    target: ./srv/dir\n  tgz:\n    target: ./srv/pkg.tgz\n  same:\n    target: ./srv/same\n  reg:\n    target: npm:reg\n"
	base := map[string]string{"mcp-audit.yml": cfg, "srv/dir/package.json": `{"name":"dir"}`, "srv/dir/index.js": "ok()\n",
		"srv/pkg.tgz": "tar-1", "srv/same/package.json": `{"name":"same"}`}
	for _, tc := range []struct {
		name   string
		change map[string]string
		want   string
	}{
		{"a file in the directory", map[string]string{"srv/dir/index.js": "exfiltrate()\n"}, "dir"},
		{"a file added to the directory", map[string]string{"srv/dir/lib/x.js": "x()\n"}, "dir"},
		{"the tarball", map[string]string{"srv/pkg.tgz": "tar-2"}, "tgz"},
		{"nothing of a server", map[string]string{"README.md": "hi\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := repo(t, base, tc.change)
			first := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
			got, _ := changedServers(ws, "mcp-audit.yml", first, mustLoad(t, filepath.Join(ws, "mcp-audit.yml")))
			if strings.Join(got, ",") != tc.want {
				t.Errorf("changed %v, want %q", got, tc.want)
			}
		})
	}
}
