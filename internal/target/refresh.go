package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
)

// Refresh installs an npm package's exact version afresh, its dependency
// ranges resolved as a user installing it now would get them (npm
// packages ship no lockfile), and makes that install the cached one when
// its tree differs from the cached install's: the next audit of the
// version then runs the tree a user gets today. It returns the package
// as Fetch would, with Cached set when the fresh tree was the cached one.
func (f *Fetcher) Refresh(ctx context.Context, s Spec) (*Package, error) {
	if s.Kind != KindNPM {
		return nil, fmt.Errorf("%w: only npm packages resolve their tree at install time", ErrUsage)
	}
	if err := os.MkdirAll(filepath.Join(f.CacheDir, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("creating cache: %w", err)
	}
	v, p, err := f.resolveNPM(ctx, s)
	if err != nil {
		return nil, err
	}
	if v.Dist.Integrity == "" {
		return nil, fmt.Errorf("%s@%s has no integrity in the registry; refusing to install unverifiable code", s.Name, v.Version)
	}
	published, _ := f.Registry.PublishTime(ctx, p, s.Name, v.Version)
	final := filepath.Join(f.CacheDir, "installs", "npm-"+hashString(v.Dist.Integrity))
	pkg := &Package{Name: s.Name, Version: v.Version, Integrity: v.Dist.Integrity, Root: final,
		Dir: path.Join("node_modules", s.Name), Published: published, Deprecated: v.Deprecated}
	stage, err := os.MkdirTemp(filepath.Join(f.CacheDir, "tmp"), "npm-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	if err := f.buildNPM(ctx, stage, s.Name, v, pkg.Dir); err != nil {
		return nil, err
	}
	if f.complete(final) && sameTree(stage, final) {
		pkg.Cached = true
		return pkg, f.readManifest(pkg)
	}
	if f.complete(final) {
		f.log().Info("the version's tree resolves differently now; replacing the cached install", "package", s.Name+"@"+v.Version)
		if err := os.RemoveAll(final); err != nil {
			return nil, fmt.Errorf("replacing the cached install: %w", err)
		}
	}
	if err := f.commit(stage, final); err != nil {
		return nil, err
	}
	return pkg, f.readManifest(pkg)
}

// sameTree reports whether two installs hold the same resolved tree (as
// deptree records it: the gate's per-install addresses left out).
func sameTree(a, b string) bool {
	ta, err := deptree.ReadNPM(a, deptree.ReadOptions{})
	if err != nil {
		return false
	}
	tb, err := deptree.ReadNPM(b, deptree.ReadOptions{})
	if err != nil {
		return false
	}
	ja, _ := json.Marshal(ta)
	jb, _ := json.Marshal(tb)
	return bytes.Equal(ja, jb)
}
