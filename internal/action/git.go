package action

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

// changedServers lists the servers a pull request adds or changes: their
// entry in the configuration differs from the base commit's, their files
// (a local directory or tarball) changed, or their baselines changed. Without a usable base, every server is checked.
func changedServers(ws, cfgRel, base string, head *config.Config) ([]string, string) {
	all := func(why string) ([]string, string) {
		var names []string
		for _, s := range head.Servers {
			names = append(names, s.Name)
		}
		return names, why
	}
	if base == "" {
		return all("no base commit in the event")
	}
	data, err := git(ws, "show", base+":"+filepath.ToSlash(cfgRel))
	if err != nil {
		return all("the base commit has no " + cfgRel)
	}
	baseCfg, err := config.Parse(filepath.Join(ws, cfgRel), data)
	if err != nil {
		return all("the base configuration is invalid")
	}
	changed := map[string]bool{}
	for _, s := range head.Servers {
		if b := baseCfg.Server(s.Name); b == nil || !sameServer(b, s) || localContentChanged(ws, base, s) {
			changed[s.Name] = true
		}
	}
	for _, name := range changedBaselines(ws, base, head) {
		changed[name] = true
	}
	var names []string
	for _, s := range head.Servers {
		if changed[s.Name] {
			names = append(names, s.Name)
		}
	}
	return names, "changed since " + base
}

// changedBaselines names the servers whose baseline files differ between
// base and HEAD. Baselines live at DIR/ECOSYSTEM/PACKAGE/VERSION.json,
// where a scoped PACKAGE has a slash.
func changedBaselines(ws, base string, head *config.Config) []string {
	baseRel, _ := filepath.Rel(ws, head.BaselineDir())
	out, err := git(ws, "diff", "--name-only", base, "HEAD", "--", filepath.ToSlash(baseRel))
	if err != nil {
		return nil
	}
	var names []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rel, err := filepath.Rel(baseRel, f)
		if err != nil || f == "" {
			continue
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) < 3 {
			continue
		}
		pkg := strings.Join(parts[1:len(parts)-1], "/")
		for _, s := range head.Servers {
			if s.PackageName() == pkg {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// git runs git in the workspace. safe.directory=* because the checkout is
// owned by another user than the Action's container.
func git(ws string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*", "-C", ws}, args...)...)
	return cmd.Output()
}

func sameServer(a, b *config.Server) bool {
	x, y := *a, *b
	x.Line, y.Line, x.VersionLine, y.VersionLine = 0, 0, 0, 0
	return reflect.DeepEqual(x, y)
}
