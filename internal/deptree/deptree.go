// Package deptree records the resolved dependency tree of an installed
// package — npm's node_modules or a Python site directory — and judges
// what changes between two of them: a release that pulls in a dependency
// with an install script, the same version with different content, an
// interpreter start-up hook, a name one edit from a popular MCP server's,
// a bin that shadows a well-known command, and known-vulnerable versions.
//
// The installed tree is hostile data (it was unpacked from an install
// container): it is only read, bounded in file sizes, entries and depth,
// and never through a symbolic link. Everything a package controls is
// stored bounded and stripped of control characters; reports still print
// it through textsafe. The Tree's JSON encoding is canonical (sorted, no
// maps), so identical trees give identical manifest bytes.
//
// The package is pure but for the advisory client (advisory.go), which
// takes its http.Client from the caller.
package deptree

import (
	"cmp"
	"slices"
	"strings"
)

// Bounds of one tree. Past a bound the walk stops adding and counts what
// it left out in Tree.Omitted: nothing is dropped silently, and a
// comparison of an incomplete tree says so (ChangeIncomplete).
const (
	MaxPackages     = 10_000   // npm packages or Python distributions
	MaxEntries      = 200_000  // directory entries visited in all
	MaxDepth        = 16       // nested node_modules levels
	MaxManifest     = 1 << 20  // bytes of one package.json, METADATA, entry_points.txt, .pth
	MaxLock         = 64 << 20 // bytes of one (hidden) package-lock.json
	MaxRecord       = 16 << 20 // bytes of one RECORD
	MaxBins         = 64       // bins (console scripts) per package
	MaxRequires     = 512      // dependency edges per package
	MaxScriptText   = 512      // bytes of one lifecycle script's command
	MaxHooks        = 256      // start-up hooks per tree
	MaxHookLines    = 8        // executable lines kept per hook
	MaxHookLineText = 256      // bytes kept of one executable line
	maxName         = 214      // npm's own limit on a package name
	maxVersion      = 128
	maxPath         = 1024
)

// Tree is the resolved dependency tree of one installed target.
type Tree struct {
	// NPM are the installed npm packages, the target included, sorted by
	// Path.
	NPM []NPMPackage `json:"npm,omitempty"`
	// Python are the installed distributions (*.dist-info), sorted by
	// normalized name and version.
	Python []PyDist `json:"python,omitempty"`
	// Hooks are the interpreter start-up hooks in the site directory:
	// *.pth files and sitecustomize/usercustomize modules, sorted by Path.
	Hooks []Hook `json:"startup_hooks,omitempty"`
	// Omitted counts what the bounds left out, by bound; empty when the
	// tree is complete.
	Omitted []Omission `json:"omitted,omitempty"`
}

// NPMPackage is one installed npm package (one directory under a
// node_modules).
type NPMPackage struct {
	// Path is the package directory relative to the tree's root
	// ("node_modules/a/node_modules/@s/b"): the key, and how it nests.
	Path string `json:"path"`
	// Name is the registry name: the directory's name, or the aliased
	// package's name the lockfile records for an alias (npm:x@1).
	Name string `json:"name"`
	// Alias is the directory's name when it differs from Name (an alias).
	Alias   string `json:"alias,omitempty"`
	Version string `json:"version"`
	// ManifestName and ManifestVersion are set only when the package.json
	// on disk disagrees with Name and Version (manifest confusion: the
	// registry's metadata and the tarball's differ).
	ManifestName    string `json:"manifest_name,omitempty"`
	ManifestVersion string `json:"manifest_version,omitempty"`
	// Resolved is where npm fetched the tarball from, as the caller's
	// ReadOptions.Resolved rewrote it (empty without one).
	Resolved string `json:"resolved,omitempty"`
	// Integrity is the lockfile's SRI string: what npm verified.
	Integrity string `json:"integrity,omitempty"`
	// InstallScript is true when npm would run a lifecycle script on
	// install: preinstall, install, postinstall, an implicit node-gyp
	// rebuild, or the lockfile's hasInstallScript.
	InstallScript bool `json:"install_script,omitempty"`
	// Scripts are the lifecycle scripts present (preinstall, install,
	// postinstall, prepare), with their commands.
	Scripts []Script `json:"scripts,omitempty"`
	// Bins are the executables npm links for the package.
	Bins []Bin `json:"bins,omitempty"`
	// Requires are the package's dependency edges (dependencies,
	// optionalDependencies, peerDependencies) as declared.
	Requires []Require `json:"requires,omitempty"`
	// Link is true for a symbolic link (a workspace or file: dependency);
	// it is recorded, never followed.
	Link bool `json:"link,omitempty"`
	// NotInLock is true for a package on disk that the lockfile does not
	// list (or when there is no lockfile).
	NotInLock bool `json:"not_in_lock,omitempty"`
	// Problem says why the package.json could not be read, if so.
	Problem string `json:"problem,omitempty"`
}

// Script is one lifecycle script.
type Script struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Bin is one executable a package provides: the command name and the file
// it runs, relative to the package.
type Bin struct {
	Name   string `json:"name"`
	Target string `json:"target,omitempty"`
}

// Require is one declared dependency edge.
type Require struct {
	Name  string `json:"name"`
	Range string `json:"range"`
	// Kind is "optional" or "peer"; empty for dependencies.
	Kind string `json:"kind,omitempty"`
}

// PyDist is one installed Python distribution.
type PyDist struct {
	// Name is as METADATA spells it; Key is its normalized form (PEP 503),
	// which comparisons use.
	Name    string `json:"name"`
	Key     string `json:"key"`
	Version string `json:"version"`
	// Dir is the metadata directory relative to the site directory.
	Dir string `json:"dir"`
	// RecordDigest is "sha256:…" over the sorted path,hash entries of the
	// distribution's RECORD, leaving out what pip writes per install
	// (INSTALLER, REQUESTED, direct_url.json, RECORD, compiled files,
	// scripts outside the site directory): the content of the wheel as it
	// claims it. Empty without a RECORD.
	RecordDigest string `json:"record_digest,omitempty"`
	// Files is the number of RECORD entries.
	Files int `json:"files"`
	// EntryPoints are its console and GUI scripts.
	EntryPoints []EntryPoint `json:"entry_points,omitempty"`
	// Bins are the file names RECORD installs into the scripts directory
	// (entry-point launchers and wheel data scripts).
	Bins []string `json:"bins,omitempty"`
	// Problem says what could not be read, if anything.
	Problem string `json:"problem,omitempty"`
}

// EntryPoint is one console or GUI script.
type EntryPoint struct {
	Name string `json:"name"`
	// Group is console_scripts or gui_scripts.
	Group  string `json:"group"`
	Target string `json:"target"`
}

// Hook kinds.
const (
	HookPth           = "pth"
	HookSitecustomize = "sitecustomize"
	HookUsercustomize = "usercustomize"
)

// Hook is one interpreter start-up hook in the site directory.
type Hook struct {
	// Path is relative to the site directory.
	Path string `json:"path"`
	Kind string `json:"kind"`
	// Digest is "sha256:…" of the file (for a module package, of its
	// __init__.py).
	Digest string `json:"digest"`
	// Exec is true when the hook runs code at every interpreter start: a
	// .pth with a line site.py executes (one starting with "import "
	// or "import\t"), or any sitecustomize/usercustomize module.
	Exec bool `json:"exec"`
	// ExecLines counts the executable lines of a .pth; Lines keeps the
	// first MaxHookLines of them, each cut to MaxHookLineText bytes.
	ExecLines int      `json:"exec_lines,omitempty"`
	Lines     []string `json:"lines,omitempty"`
	// Owner is the normalized name of the distribution whose RECORD lists
	// the file; empty when none does.
	Owner string `json:"owner,omitempty"`
	// RecordMismatch is true when the file's content differs from the hash
	// its owner's RECORD gives for it.
	RecordMismatch bool `json:"record_mismatch,omitempty"`
}

// limits are the bounds the readers apply: the constants above, lowered
// by tests to reach them cheaply.
var limits = struct{ packages, entries, depth, hooks, fileEvents int }{MaxPackages, MaxEntries, MaxDepth, MaxHooks, MaxFileEvents}

// Omission kinds: which bound left something out.
const (
	OmitPackages = "packages"
	OmitEntries  = "entries"
	OmitDepth    = "depth"
	OmitBins     = "bins"
	OmitRequires = "requires"
	OmitHooks    = "hooks"
	OmitTooLarge = "too-large" // a file over its size bound, not read
)

// Omission counts what one bound left out.
type Omission struct {
	What  string `json:"what"`
	Count int    `json:"count"`
}

// Complete reports whether no bound left anything out.
func (t *Tree) Complete() bool { return t == nil || len(t.Omitted) == 0 }

// omit counts n left out by the bound what.
func (t *Tree) omit(what string, n int) {
	if n <= 0 {
		return
	}
	for i := range t.Omitted {
		if t.Omitted[i].What == what {
			t.Omitted[i].Count += n
			return
		}
	}
	t.Omitted = append(t.Omitted, Omission{What: what, Count: n})
}

// Canonicalize sorts every list of t in place, so that equal trees
// encode to equal bytes whatever order they were read in.
func (t *Tree) Canonicalize() {
	for i := range t.NPM {
		p := &t.NPM[i]
		slices.SortFunc(p.Scripts, func(a, b Script) int { return strings.Compare(a.Name, b.Name) })
		slices.SortFunc(p.Bins, func(a, b Bin) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Target, b.Target))
		})
		slices.SortFunc(p.Requires, func(a, b Require) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Range, b.Range))
		})
	}
	slices.SortFunc(t.NPM, func(a, b NPMPackage) int { return strings.Compare(a.Path, b.Path) })
	for i := range t.Python {
		d := &t.Python[i]
		slices.SortFunc(d.EntryPoints, func(a, b EntryPoint) int {
			return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Name, b.Name), strings.Compare(a.Target, b.Target))
		})
		slices.Sort(d.Bins)
		d.Bins = slices.Compact(d.Bins)
	}
	slices.SortFunc(t.Python, func(a, b PyDist) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Version, b.Version), strings.Compare(a.Dir, b.Dir))
	})
	slices.SortFunc(t.Hooks, func(a, b Hook) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(t.Omitted, func(a, b Omission) int { return strings.Compare(a.What, b.What) })
}
