package deptree

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

// ReadPython reads the Python tree installed in the site directory site
// (pip --target): each top-level *.dist-info (METADATA, RECORD,
// entry_points.txt), and the start-up hooks site.py and the import system
// run at every interpreter start: top-level *.pth files and
// sitecustomize/usercustomize modules. Nothing is imported or run.
func ReadPython(site string) (*Tree, error) {
	t := &Tree{}
	r, err := openReader(site, t)
	if err != nil {
		return nil, err
	}
	defer r.close()
	entries := r.readDir(".")
	owners := map[string]recordOwner{}
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), ".dist-info") {
			if len(t.Python) >= limits.packages {
				t.omit(OmitPackages, 1)
				continue
			}
			t.Python = append(t.Python, readDist(r, e.Name(), owners))
		}
	}
	for _, e := range entries {
		kind, file := hookKind(r, e)
		if kind == "" {
			continue
		}
		if len(t.Hooks) >= limits.hooks {
			t.omit(OmitHooks, 1)
			continue
		}
		t.Hooks = append(t.Hooks, readHook(r, kind, file, owners))
	}
	t.Canonicalize()
	return t, nil
}

// recordOwner is the distribution whose RECORD lists a file, and the hash
// it gives for it.
type recordOwner struct{ key, hash string }

func readDist(r *reader, dir string, owners map[string]recordOwner) PyDist {
	d := PyDist{Dir: clean(dir, maxPath)}
	var problems []string
	if b, err := r.readHead(path.Join(dir, "METADATA"), MaxManifest); err == nil {
		d.Name, d.Version = parseMetadata(b)
	} else {
		problems = append(problems, "METADATA: "+problem(err))
	}
	if d.Name == "" {
		// The directory is NAME-VERSION.dist-info.
		d.Name, d.Version, _ = strings.Cut(strings.TrimSuffix(d.Dir, ".dist-info"), "-")
	}
	d.Key = NormalizePyName(d.Name)
	if b, err := r.readFile(path.Join(dir, "RECORD"), MaxRecord); err == nil {
		rec := parseRecord(b)
		d.Files, d.RecordDigest, d.Bins = len(rec), recordDigest(rec), recordBins(rec)
		for _, e := range rec {
			if p := path.Clean(e.path); !outside(p) {
				owners[p] = recordOwner{key: d.Key, hash: e.hash}
			}
		}
	} else {
		problems = append(problems, "RECORD: "+problem(err))
	}
	if b, err := r.readFile(path.Join(dir, "entry_points.txt"), MaxManifest); err == nil {
		d.EntryPoints = parseEntryPoints(b)
	}
	if len(d.EntryPoints) > MaxBins {
		r.tree.omit(OmitBins, len(d.EntryPoints)-MaxBins)
		d.EntryPoints = d.EntryPoints[:MaxBins]
	}
	if len(d.Bins) > MaxBins {
		r.tree.omit(OmitBins, len(d.Bins)-MaxBins)
		d.Bins = d.Bins[:MaxBins]
	}
	d.Problem = strings.Join(problems, "; ")
	return d
}

// hookKind tells whether a top-level entry is a start-up hook, and which
// file holds its code: a *.pth, or a sitecustomize/usercustomize module in
// any form the import system loads (source, compiled, extension, or a
// package's __init__).
func hookKind(r *reader, e fs.DirEntry) (kind, file string) {
	name := e.Name()
	if e.Type().IsRegular() && strings.HasSuffix(name, ".pth") {
		return HookPth, name
	}
	mod, ext, _ := strings.Cut(name, ".")
	if mod != HookSitecustomize && mod != HookUsercustomize {
		return "", ""
	}
	switch {
	case e.Type().IsRegular() && (ext == "py" || ext == "pyc" || ext == "pyw" || ext == "so" || ext == "pyd" ||
		strings.HasSuffix(ext, ".so") || strings.HasSuffix(ext, ".pyd")):
		return mod, name
	case e.IsDir() && ext == "":
		for _, init := range []string{"__init__.py", "__init__.pyc"} {
			if m, ok := r.mode(path.Join(name, init)); ok && m.IsRegular() {
				return mod, path.Join(name, init)
			}
		}
	}
	return "", ""
}

func readHook(r *reader, kind, file string, owners map[string]recordOwner) Hook {
	h := Hook{Path: clean(file, maxPath), Kind: kind, Exec: kind != HookPth}
	b, err := r.readFile(file, MaxRecord)
	if err != nil {
		// Unread (too large, say): the hook is recorded, and a .pth that
		// could not be read counts as executable.
		h.Exec = true
		return h
	}
	sum := sha256.Sum256(b)
	h.Digest = "sha256:" + hex.EncodeToString(sum[:])
	if kind == HookPth {
		h.Lines, h.ExecLines = pthLines(b)
		h.Exec = h.ExecLines > 0
	}
	if o, ok := owners[file]; ok {
		h.Owner = o.key
		algo, want, _ := strings.Cut(o.hash, "=")
		h.RecordMismatch = algo == "sha256" && want != base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return h
}
