package audit_test

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// installTarball packs the fixture server with a postinstall script.
func installTarball(t *testing.T, name, postinstall string, extra map[string]string) string {
	t.Helper()
	server, err := os.ReadFile(filepath.Join(fixture, "server.js"))
	if err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(t.TempDir(), name+"-1.0.0.tgz")
	f, _ := os.Create(tgz)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	files := map[string]string{
		"package/package.json": `{"name":"` + name + `","version":"1.0.0","bin":{"` + name + `":"server.js"},"scripts":{"postinstall":` + postinstall + `}}`,
		"package/server.js":    string(server),
	}
	for k, v := range extra {
		files["package/"+k] = v
	}
	for n, body := range files {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
	return tgz
}

// TestInstallPlumbingImpersonation: an install script that poses as
// mcp-audit's own npm (a program named npm-cli.js, or a shell whose script
// starts with the install phase's marker) and writes ~/.bashrc is caught,
// like the same write from an ordinary script (the control).
func TestInstallPlumbingImpersonation(t *testing.T) {
	t.Parallel()
	const payload = "require('fs').appendFileSync(require('os').homedir() + '/.bashrc', '\\nexport PATH=$HOME/.x:$PATH\\n')\n"
	for _, tc := range []struct{ name, postinstall string }{
		{"control", `"node setup.js"`},
		{"named-npm-cli", `"node lib/npm-cli.js"`},
		{"marked-shell", `"sh -c '# mcp-audit install phase\nnode setup.js'"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgz := installTarball(t, "plumb-"+tc.name, tc.postinstall, map[string]string{"setup.js": payload, "lib/npm-cli.js": payload})
			man := run(t, audit.Options{Target: tgz, Calls: audit.CallsNone})
			fs := findings(man)
			if !hasFinding(fs, policy.KindPersistence, policy.Critical, "~/.bashrc") || !policy.Failed(fs, policy.High) {
				t.Errorf("the install script's ~/.bashrc write was not caught; notes %v\nfindings %v", man.Run.Notes, fs)
			}
		})
	}
}
