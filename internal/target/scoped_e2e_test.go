package target_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestScopedRegistryWithPublicDependencies installs a package from a
// scope's own registry whose dependency lives only on the default
// registry, as private servers built on public libraries do.
func TestScopedRegistryWithPublicDependencies(t *testing.T) {
	public, private := testenv.NewRegistry(t), testenv.NewRegistry(t)
	public.Publish(t, map[string]string{"package.json": `{"name":"plain-dep","version":"1.2.3","license":"MIT"}`, "index.js": "module.exports = 1\n"})
	private.Publish(t, map[string]string{"package.json": `{"name":"@corp/server","version":"2.0.0","license":"MIT","bin":{"server":"index.js"},"dependencies":{"plain-dep":"^1.2.0"}}`,
		"index.js": "require('plain-dep')\n"})
	home := t.TempDir()
	rc := filepath.Join(home, ".npmrc")
	host := strings.TrimPrefix(private.URL, "http:")
	os.WriteFile(rc, []byte("registry="+public.URL+"\n@corp:registry="+private.URL+"\n"+host+":_authToken=corp-token\n"), 0o600)
	t.Setenv("NPM_CONFIG_USERCONFIG", rc)
	t.Setenv("NPM_CONFIG_REGISTRY", "")
	env := map[string]string{"NPM_CONFIG_USERCONFIG": rc}
	reg, err := target.NewRegistry(target.LoadNPMConfig(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	f := &target.Fetcher{Registry: reg, CacheDir: t.TempDir(), Installer: testenv.Installer(t)}
	spec, _ := target.ParseSpec("npm:@corp/server")
	pkg, err := f.Fetch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pkg.Root, "node_modules", "plain-dep", "index.js")); err != nil {
		t.Errorf("the public dependency was not installed: %v", err)
	}
}
