package target

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
)

// Package is an installed target on the host, ready to copy into the
// sandbox.
type Package struct {
	Name    string
	Version string
	// Integrity is the registry's SRI string, or sha256-… of a local
	// tarball or directory.
	Integrity string
	// Root is the host directory holding node_modules/<Name>.
	Root string
	// Dir is the package directory relative to Root.
	Dir string
	// Manifest is the installed package.json.
	Manifest PackageJSON
	// Python is set for Python targets (Dir is then PySite).
	Python *PyDist
	// Cached is true when no download or install was needed.
	Cached bool
	// Published is when the registry says the version was published
	// (zero when it does not say, and for local targets); Deprecated is
	// its deprecation message.
	Published  time.Time
	Deprecated string
	// Temporary roots are removed by Cleanup.
	temporary bool
}

// Temporary reports whether the install is a one-off copy (a local
// directory with its own node_modules) rather than a cached install.
func (p *Package) Temporary() bool { return p.temporary }

// Cleanup removes a temporary install.
func (p *Package) Cleanup() {
	if p.temporary {
		os.RemoveAll(p.Root)
	}
}

// Fetcher installs targets into a cache.
type Fetcher struct {
	Registry *Registry
	CacheDir string
	// Prerelease lets ranges match prereleases.
	Prerelease bool
	Log        *slog.Logger
	// Installer runs npm in a container; nothing is installed or built on
	// the host. Needed whenever dependencies must be installed.
	Installer Installer
	// PyPI is the simple index for Python targets; PyPIHTTP its client
	// (http.DefaultClient when nil).
	PyPI     PyPIConfig
	PyPIHTTP *http.Client
}

func (f *Fetcher) log() *slog.Logger {
	if f.Log != nil {
		return f.Log
	}
	return slog.New(slog.DiscardHandler)
}

// DefaultCacheDir is $XDG_CACHE_HOME/mcp-audit or ~/.cache/mcp-audit.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "mcp-audit")
}

// Fetch resolves and installs a target. No package code runs on the host:
// npm runs only in the install container, with --ignore-scripts, and
// dependencies from git, URLs or local paths are refused.
func (f *Fetcher) Fetch(ctx context.Context, s Spec) (*Package, error) {
	if err := os.MkdirAll(filepath.Join(f.CacheDir, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("creating cache: %w", err)
	}
	switch s.Kind {
	case KindNPM:
		return f.fetchNPM(ctx, s)
	case KindDir:
		return f.fetchDir(ctx, s.Path)
	case KindTarball:
		return f.fetchTarball(ctx, s.Path)
	case KindPyPI, KindWheel, KindSdist, KindPyDir:
		return f.fetchPython(ctx, s)
	}
	return nil, fmt.Errorf("%w: unknown target kind %q", ErrUsage, s.Kind)
}

// ResolveNPM resolves an npm spec to a version without installing.
func (f *Fetcher) ResolveNPM(ctx context.Context, s Spec) (*Version, error) {
	v, _, err := f.resolveNPM(ctx, s)
	return v, err
}

func (f *Fetcher) resolveNPM(ctx context.Context, s Spec) (*Version, *Packument, error) {
	if f.Registry == nil {
		return nil, nil, errors.New("no npm registry configured")
	}
	p, err := f.Registry.Fetch(ctx, s.Name)
	if err != nil {
		return nil, nil, err
	}
	v, err := p.Resolve(s.Range, f.Prerelease)
	return v, p, err
}

// indexPath records which integrity an exact name@version resolved to, so
// that auditing the same version again needs no network at all.
func (f *Fetcher) indexPath(name, version string) string {
	return filepath.Join(f.CacheDir, "index", "npm", hashString(name+"@"+version)+".json")
}

type indexEntry struct {
	Name       string    `json:"name"`
	Version    string    `json:"version"`
	Integrity  string    `json:"integrity"`
	Published  time.Time `json:"published,omitzero"`
	Deprecated string    `json:"deprecated,omitempty"`
}

// indexedPublished is the publish time an earlier fetch of the same
// version and integrity recorded.
func (f *Fetcher) indexedPublished(name, version, integrity string) (time.Time, bool) {
	e, ok := f.readIndex(name, version)
	if !ok || e.Integrity != integrity {
		return time.Time{}, false
	}
	return e.Published, true
}

// readIndex is the index entry an earlier fetch wrote for name@version.
func (f *Fetcher) readIndex(name, version string) (indexEntry, bool) {
	var e indexEntry
	b, err := os.ReadFile(f.indexPath(name, version))
	if err != nil || json.Unmarshal(b, &e) != nil || e.Name != name || e.Version != version || e.Integrity == "" {
		return indexEntry{}, false
	}
	return e, true
}

func (f *Fetcher) fromIndex(s Spec) *Package {
	if _, err := semver.StrictNewVersion(s.Range); err != nil {
		return nil // ranges and tags move: they must be resolved
	}
	e, ok := f.readIndex(s.Name, s.Range)
	if !ok {
		return nil
	}
	final := filepath.Join(f.CacheDir, "installs", "npm-"+hashString(e.Integrity))
	if !f.complete(final) {
		return nil
	}
	pkg := &Package{Name: s.Name, Version: e.Version, Integrity: e.Integrity, Root: final,
		Dir: path.Join("node_modules", s.Name), Cached: true, Published: e.Published, Deprecated: e.Deprecated}
	if f.readManifest(pkg) != nil {
		return nil
	}
	return pkg
}

func (f *Fetcher) fetchNPM(ctx context.Context, s Spec) (*Package, error) {
	if pkg := f.fromIndex(s); pkg != nil {
		return pkg, nil
	}
	v, p, err := f.resolveNPM(ctx, s)
	if err != nil {
		return nil, err
	}
	// When the version was published decides whether check accepts it
	// yet; a registry that does not say leaves it zero. It never changes,
	// so a version fetched before keeps what its index entry says (the
	// abbreviated document has no times: asking costs the full one).
	published, known := f.indexedPublished(s.Name, v.Version, v.Dist.Integrity)
	if !known {
		published, _ = f.Registry.PublishTime(ctx, p, s.Name, v.Version)
	}
	defer func() {
		b, _ := json.Marshal(indexEntry{Name: s.Name, Version: v.Version, Integrity: v.Dist.Integrity, Published: published, Deprecated: v.Deprecated})
		if os.MkdirAll(filepath.Dir(f.indexPath(s.Name, v.Version)), 0o755) == nil {
			os.WriteFile(f.indexPath(s.Name, v.Version), b, 0o644)
		}
	}()
	if v.Dist.Integrity == "" {
		return nil, fmt.Errorf("%s@%s has no integrity in the registry; refusing to install unverifiable code", v.Name, v.Version)
	}
	final := filepath.Join(f.CacheDir, "installs", "npm-"+hashString(v.Dist.Integrity))
	pkg := &Package{Name: s.Name, Version: v.Version, Integrity: v.Dist.Integrity, Root: final,
		Dir: path.Join("node_modules", s.Name), Published: published, Deprecated: v.Deprecated}
	pkg.Cached, err = f.installOnce(final, "npm", func(stage string) error { return f.buildNPM(ctx, stage, s.Name, v, pkg.Dir) })
	if err != nil {
		return nil, err
	}
	return pkg, f.readManifest(pkg)
}

// buildNPM installs v into stage (its dependency ranges resolved now,
// scripts ignored) in the install container.
func (f *Fetcher) buildNPM(ctx context.Context, stage, name string, v *Version, dir string) error {
	if err := checkFetchable(name+"@"+v.Version, v.Dependencies); err != nil {
		return err
	}
	pj, _ := json.Marshal(map[string]any{"name": "mcp-audit-install", "private": true,
		"dependencies": map[string]string{name: v.Version}})
	if err := os.WriteFile(filepath.Join(stage, "package.json"), pj, 0o644); err != nil {
		return err
	}
	f.log().Info("installing", "package", name+"@"+v.Version, "scripts", "ignored", "where", "install container")
	if err := f.npmInstall(ctx, stage); err != nil {
		return err
	}
	// The lockfile records what npm verified; it must be the tarball
	// the registry advertised.
	if got := lockIntegrity(stage, dir); got != "" && got != v.Dist.Integrity {
		return fmt.Errorf("integrity mismatch for %s@%s: registry %s, installed %s", name, v.Version, v.Dist.Integrity, got)
	}
	return nil
}

func lockIntegrity(root, dir string) string {
	b, err := os.ReadFile(filepath.Join(root, "package-lock.json"))
	if err != nil {
		return ""
	}
	var lock struct {
		Packages map[string]struct {
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if json.Unmarshal(b, &lock) != nil {
		return ""
	}
	return lock.Packages[dir].Integrity
}

func (f *Fetcher) complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".mcp-audit-complete"))
	return err == nil
}

// installOnce fills the cache entry final once: when it is complete it
// reports cached; otherwise build fills a fresh stage, which is committed
// to final.
func (f *Fetcher) installOnce(final, prefix string, build func(stage string) error) (cached bool, err error) {
	if f.complete(final) {
		return true, nil
	}
	stage, err := os.MkdirTemp(filepath.Join(f.CacheDir, "tmp"), prefix+"-*")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(stage)
	if err := build(stage); err != nil {
		return false, err
	}
	return false, f.commit(stage, final)
}

// commit moves a finished stage into place atomically. If another audit
// finished the same install first, its result is kept.
func (f *Fetcher) commit(stage, final string) error {
	if err := os.WriteFile(filepath.Join(stage, ".mcp-audit-complete"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	if err := os.Rename(stage, final); err != nil {
		if f.complete(final) {
			return nil
		}
		os.RemoveAll(final)
		if err := os.Rename(stage, final); err != nil {
			return fmt.Errorf("storing install in cache: %w", err)
		}
	}
	return nil
}

func (f *Fetcher) readManifest(p *Package) error {
	m, err := ReadPackageJSON(filepath.Join(p.Root, p.Dir))
	if err != nil {
		return err
	}
	p.Manifest = m
	if p.Version == "" {
		p.Version = m.Version
	}
	return nil
}

// fetchDir installs a local package directory. A directory that already
// has node_modules is used as it is; otherwise its dependencies are
// installed (scripts ignored) into a cached copy. The directory's own
// .npmrc is never read: it could point npm at a hostile git or shell.
func (f *Fetcher) fetchDir(ctx context.Context, dir string) (*Package, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m, err := ReadPackageJSON(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	name := m.Name
	if name == "" {
		name = filepath.Base(abs)
	}
	if !reName.MatchString(name) {
		name = "local-package"
	}
	sum, err := hashDir(abs)
	if err != nil {
		return nil, err
	}
	version := m.Version
	if version == "" {
		version = "0.0.0-local"
	}
	pkg := &Package{Name: name, Version: version, Integrity: sum, Dir: path.Join("node_modules", name), Manifest: m}
	_, hasModules := os.Stat(filepath.Join(abs, "node_modules"))
	needsInstall := hasModules != nil && len(m.Dependencies) > 0
	final := filepath.Join(f.CacheDir, "installs", "dir-"+hashString(sum))
	if hasModules == nil {
		// Dependencies are already there: copy fresh every time.
		stage, err := os.MkdirTemp(filepath.Join(f.CacheDir, "tmp"), "dir-*")
		if err != nil {
			return nil, err
		}
		if err := copyTree(abs, filepath.Join(stage, pkg.Dir), false); err != nil {
			os.RemoveAll(stage)
			return nil, err
		}
		pkg.Root, pkg.temporary = stage, true
		return pkg, nil
	}
	pkg.Root = final
	pkg.Cached, err = f.installOnce(final, "dir", func(stage string) error {
		if err := copyTree(abs, filepath.Join(stage, pkg.Dir), true); err != nil {
			return err
		}
		if !needsInstall {
			return nil
		}
		f.log().Info("installing dependencies", "package", name, "scripts", "ignored")
		return f.npmInstall(ctx, filepath.Join(stage, pkg.Dir))
	})
	if err != nil {
		return nil, err
	}
	return pkg, nil
}

// fetchTarball extracts a package tarball (safely: no absolute paths, no
// "..", no links, bounded size) and installs its dependencies.
func (f *Fetcher) fetchTarball(ctx context.Context, file string) (*Package, error) {
	data, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer data.Close()
	h := sha256.New()
	if _, err := io.Copy(h, data); err != nil {
		return nil, err
	}
	sum := "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil))
	if _, err := data.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(filepath.Join(f.CacheDir, "tmp"), "tgz-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	unpacked := filepath.Join(stage, "unpacked")
	if err := extractTarball(data, unpacked); err != nil {
		return nil, fmt.Errorf("extracting %s: %w", file, err)
	}
	pkg, err := f.fetchDir(ctx, unpacked)
	if err != nil {
		return nil, err
	}
	pkg.Integrity = sum
	return pkg, nil
}

const (
	maxTarballBytes = 1 << 30
	maxTarballFiles = 200_000
)

func extractTarball(r io.Reader, dst string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	var total int64
	files := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if files++; files > maxTarballFiles {
			return errors.New("too many files")
		}
		name := path.Clean("/" + hdr.Name)
		// npm tarballs put everything under one top directory ("package/").
		if i := strings.IndexByte(name[1:], '/'); i >= 0 {
			name = name[1+i:]
		} else {
			continue
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		if !strings.HasPrefix(target, dst+string(filepath.Separator)) {
			return fmt.Errorf("entry %q escapes the package", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += hdr.Size; total > maxTarballBytes {
				return errors.New("tarball expands beyond 1 GiB")
			}
			// A later duplicate entry replaces an earlier one, as tar does.
			if err := writeFile(target, tr, hdr, os.O_TRUNC); err != nil {
				return err
			}
		default:
			// Links and special files: npm does not install them either.
		}
	}
}

// hashDir hashes a directory's files (paths and contents), skipping
// node_modules and .git, as "sha256-…".
func hashDir(dir string) (string, error) {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") && p != dir {
			return fs.SkipDir
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			paths = append(paths, p)
		}
		if len(paths) > maxTarballFiles {
			return errors.New("too many files")
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		if target, err := os.Readlink(p); err == nil {
			fmt.Fprintf(h, "-> %s\x00", target) // a symlink: its target, never followed
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		h.Write([]byte{0})
	}
	return "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

func hashString(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// copyTree copies a package directory without following symlinks. .git
// and .npmrc are skipped; node_modules too when skipModules is set.
func copyTree(src, dst string, skipModules bool) error {
	return fsutil.CopyTree(src, dst, func(_ string, d fs.DirEntry) bool {
		return d.Name() == ".git" || d.Name() == ".npmrc" || skipModules && d.Name() == "node_modules" && d.IsDir()
	})
}
