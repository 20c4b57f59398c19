package deptree

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// ReadOptions adjust how a tree is read.
type ReadOptions struct {
	// Resolved rewrites a lockfile's resolved URL for the manifest: the
	// install gate's per-install address back to the registry's. Without
	// it resolved URLs are left out, since a gate URL differs per install
	// and the manifest would too. Returning "" leaves one out.
	Resolved func(string) string
}

// ReadNPM reads the npm tree installed under root: every package in
// root/node_modules and the node_modules nested in them, each with its
// package.json, and what npm recorded of it in the hidden lockfile
// (node_modules/.package-lock.json, at any level) or, failing that,
// root/package-lock.json. Links are recorded, never followed.
func ReadNPM(root string, o ReadOptions) (*Tree, error) {
	t := &Tree{}
	r, err := openReader(root, t)
	if err != nil {
		return nil, err
	}
	defer r.close()
	w := &npmWalk{reader: r, opts: o, lock: map[string]lockEntry{}}
	if b, err := r.readFile("package-lock.json", MaxLock); err == nil {
		w.addLock("", b)
	}
	w.walk("", 0)
	t.Canonicalize()
	return t, nil
}

type npmWalk struct {
	*reader
	opts ReadOptions
	// lock maps package paths (relative to the root) to what a lockfile
	// says of them; a lockfile nearer the package overrides a farther one.
	lock map[string]lockEntry
}

func (w *npmWalk) addLock(base string, b []byte) {
	entries, err := parseLock(b)
	if err != nil {
		return
	}
	for k, e := range entries {
		w.lock[path.Join(base, k)] = e
	}
}

// walk records the packages of dir/node_modules and recurses into theirs.
func (w *npmWalk) walk(dir string, depth int) {
	nm := path.Join(dir, "node_modules")
	if b, err := w.readFile(path.Join(nm, ".package-lock.json"), MaxLock); err == nil {
		w.addLock(dir, b)
	}
	for _, e := range w.readDir(nm) {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
			// .bin, .package-lock.json, caches: npm's own, not packages.
		case strings.HasPrefix(name, "@") && e.IsDir():
			for _, s := range w.readDir(path.Join(nm, name)) {
				w.visit(path.Join(nm, name, s.Name()), name+"/"+s.Name(), s.Type(), depth)
			}
		default:
			w.visit(path.Join(nm, name), name, e.Type(), depth)
		}
	}
}

// visit records the package at rel, installed under the directory name
// dirName, and walks its own node_modules.
func (w *npmWalk) visit(rel, dirName string, mode fs.FileMode, depth int) {
	if mode&fs.ModeSymlink == 0 && !mode.IsDir() {
		return // a stray file in node_modules
	}
	if len(w.tree.NPM) >= limits.packages {
		w.tree.omit(OmitPackages, 1)
		return
	}
	le, inLock := w.lock[rel]
	p := NPMPackage{Path: clean(rel, maxPath), Name: clean(dirName, maxName), NotInLock: !inLock}
	if le.Name != "" && le.Name != p.Name {
		p.Alias, p.Name = p.Name, le.Name
	}
	p.Version, p.Integrity, p.InstallScript = le.Version, le.Integrity, le.HasInstallScript
	if w.opts.Resolved != nil && le.Resolved != "" {
		p.Resolved = clean(w.opts.Resolved(le.Resolved), maxPath)
	}
	if mode&fs.ModeSymlink != 0 {
		p.Link, p.Bins = true, le.Bins
		w.tree.NPM = append(w.tree.NPM, p)
		return
	}
	w.readPackage(&p, rel, le)
	w.tree.NPM = append(w.tree.NPM, p)
	if depth+1 >= limits.depth {
		if len(w.readDir(path.Join(rel, "node_modules"))) > 0 {
			w.tree.omit(OmitDepth, 1)
		}
		return
	}
	w.walk(rel, depth+1)
}

// readPackage fills p from the package.json at rel: the scripts and bins
// npm would act on are the ones on disk, whatever the lockfile says.
func (w *npmWalk) readPackage(p *NPMPackage, rel string, le lockEntry) {
	b, err := w.readFile(path.Join(rel, "package.json"), MaxManifest)
	if err != nil {
		p.Problem = "package.json: " + problem(err)
		p.Bins = le.Bins
		return
	}
	pj, err := parsePackageJSON(b)
	if err != nil {
		p.Problem = "package.json: " + err.Error()
		p.Bins = le.Bins
		return
	}
	if pj.name != "" && pj.name != p.Name {
		p.ManifestName = pj.name
	}
	if p.Version == "" {
		p.Version = pj.version
	} else if pj.version != p.Version {
		p.ManifestVersion = pj.version
	}
	p.Scripts, p.Bins, p.Requires = pj.scripts, pj.bins, pj.requires
	w.tree.omit(OmitBins, pj.omittedBins)
	w.tree.omit(OmitRequires, pj.omittedReqs)
	if len(p.Bins) == 0 && pj.binDir != "" {
		p.Bins = w.dirBins(rel, pj.binDir)
	}
	if !pj.noGyp && !hasScript(p.Scripts, "install") && !hasScript(p.Scripts, "preinstall") {
		if m, ok := w.mode(path.Join(rel, "binding.gyp")); ok && m.IsRegular() {
			// npm runs "node-gyp rebuild" as the install script of a
			// package with a binding.gyp and no install script of its own.
			p.Scripts = append(p.Scripts, Script{Name: "install", Command: "node-gyp rebuild"})
		}
	}
	p.InstallScript = p.InstallScript || hasScript(p.Scripts, installLifecycle...)
}

// dirBins lists the files of directories.bin, which npm links as bins
// when the package has no bin field (one level deep here).
func (w *npmWalk) dirBins(rel, dir string) []Bin {
	d := path.Clean("/" + dir)[1:]
	if d == "" {
		return nil
	}
	for p := path.Dir(d); p != "."; p = path.Dir(p) {
		if m, ok := w.mode(path.Join(rel, p)); !ok || !m.IsDir() {
			return nil // through a link, or absent
		}
	}
	var out []Bin
	for _, e := range w.readDir(path.Join(rel, d)) {
		if !e.Type().IsRegular() {
			continue
		}
		if len(out) == MaxBins {
			w.tree.omit(OmitBins, 1)
			continue
		}
		out = append(out, Bin{Name: clean(e.Name(), maxName), Target: clean(path.Join(d, e.Name()), maxPath)})
	}
	return out
}

func hasScript(s []Script, names ...string) bool {
	for _, x := range s {
		for _, n := range names {
			if x.Name == n {
				return true
			}
		}
	}
	return false
}

// problem is a short, stable reason a file could not be read.
func problem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, errTooLarge):
		return "over the size bound"
	case errors.Is(err, errNotRegular):
		return "not a regular file"
	}
	return "unreadable"
}
