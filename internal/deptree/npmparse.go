package deptree

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"path"
	"slices"
	"strings"
)

// pkgInfo is what the tree records of one package.json.
type pkgInfo struct {
	name, version string
	scripts       []Script
	bins          []Bin
	binDir        string // directories.bin, used when bin is absent
	requires      []Require
	noGyp         bool // "gypfile": false turns off the implicit node-gyp rebuild
	omittedBins   int
	omittedReqs   int
}

// lifecycle are the scripts recorded: the three npm runs on install, and
// prepare, which it runs for git dependencies (mcp-audit refuses those,
// but a changed prepare is worth seeing).
var lifecycle = []string{"preinstall", "install", "postinstall", "prepare"}

// installLifecycle are the scripts npm runs when it installs a package
// from a registry.
var installLifecycle = []string{"preinstall", "install", "postinstall"}

var bom = []byte("\xef\xbb\xbf")

// parsePackageJSON reads a package.json tolerantly: a field of the wrong
// type is ignored, as npm ignores it, rather than failing the package.
// Duplicate keys keep the last value, as JSON.parse does.
func parsePackageJSON(b []byte) (pkgInfo, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(b, bom), &raw); err != nil {
		return pkgInfo{}, errors.New("invalid JSON")
	}
	var p pkgInfo
	p.name = clean(jsonString(raw["name"]), maxName)
	p.version = clean(jsonString(raw["version"]), maxVersion)
	var scripts map[string]json.RawMessage
	if json.Unmarshal(raw["scripts"], &scripts) == nil {
		for _, n := range lifecycle {
			if c := jsonString(scripts[n]); strings.TrimSpace(c) != "" {
				p.scripts = append(p.scripts, Script{Name: n, Command: clean(c, MaxScriptText)})
			}
		}
	}
	p.bins, p.omittedBins = parseBins(raw["bin"], p.name)
	var dirs map[string]json.RawMessage
	if json.Unmarshal(raw["directories"], &dirs) == nil {
		p.binDir = jsonString(dirs["bin"])
	}
	var gyp bool
	p.noGyp = json.Unmarshal(raw["gypfile"], &gyp) == nil && !gyp
	for _, k := range []struct{ field, kind string }{
		{"dependencies", ""}, {"optionalDependencies", "optional"}, {"peerDependencies", "peer"},
	} {
		var deps map[string]json.RawMessage
		if json.Unmarshal(raw[k.field], &deps) != nil {
			continue
		}
		for n, r := range deps {
			if s, ok := jsonStringOK(r); ok && clean(n, maxName) != "" {
				p.requires = append(p.requires, Require{Name: clean(n, maxName), Range: clean(s, 256), Kind: k.kind})
			}
		}
	}
	slices.SortFunc(p.requires, func(a, b Require) int {
		return strings.Compare(a.Kind+"\x00"+a.Name, b.Kind+"\x00"+b.Name)
	})
	if len(p.requires) > MaxRequires {
		p.omittedReqs = len(p.requires) - MaxRequires
		p.requires = p.requires[:MaxRequires]
	}
	return p, nil
}

func jsonString(raw json.RawMessage) string {
	s, _ := jsonStringOK(raw)
	return s
}

func jsonStringOK(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// parseBins reads the bin field as npm normalizes it: a string is one bin
// named for the package (its name after the scope); an object maps names
// to files. Names are reduced to their last path element, targets kept
// inside the package; empty ones are dropped, as npm drops them.
func parseBins(raw json.RawMessage, pkgName string) ([]Bin, int) {
	var out []Bin
	if s, ok := jsonStringOK(raw); ok {
		name := pkgName[strings.LastIndex(pkgName, "/")+1:]
		if b, ok := binEntry(name, s); ok {
			out = append(out, b)
		}
		return out, 0
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, 0
	}
	for k, v := range m {
		if s, ok := jsonStringOK(v); ok {
			if b, ok := binEntry(k, s); ok {
				out = append(out, b)
			}
		}
	}
	// Two keys can name one bin ("x" and "dir/x"): the first target in
	// sorted order is kept, whatever order the map gave them in.
	slices.SortFunc(out, func(a, b Bin) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Target, b.Target))
	})
	out = slices.CompactFunc(out, func(a, b Bin) bool { return a.Name == b.Name })
	if len(out) > MaxBins {
		return out[:MaxBins], len(out) - MaxBins
	}
	return out, 0
}

// binEntry normalizes one bin: npm links it under its base name (after
// turning backslashes and colons into slashes) to a target inside the
// package.
func binEntry(name, target string) (Bin, bool) {
	base := clean(path.Base(strings.NewReplacer(`\`, "/", ":", "/").Replace(clean(name, maxPath))), maxName)
	t := clean(path.Clean("/" + strings.ReplaceAll(target, `\`, "/"))[1:], maxPath)
	if base == "." || base == "/" || base == ".." || base == "" || t == "" {
		return Bin{}, false
	}
	return Bin{Name: base, Target: t}, true
}

// lockEntry is one package of a lockfile's "packages" map.
type lockEntry struct {
	Name             string
	Version          string
	Resolved         string
	Integrity        string
	HasInstallScript bool
	Link             bool
	Bins             []Bin
}

// parseLock reads the packages of a package-lock.json or npm's hidden
// node_modules/.package-lock.json (lockfile versions 2 and 3), keyed by
// their path ("node_modules/a"). An entry of the wrong shape is skipped;
// version 1 lockfiles have no packages and give none.
func parseLock(b []byte) (map[string]lockEntry, error) {
	var doc struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(b, bom), &doc); err != nil {
		return nil, errors.New("invalid JSON")
	}
	out := make(map[string]lockEntry, len(doc.Packages))
	for k, raw := range doc.Packages {
		var e map[string]json.RawMessage
		if k == "" || json.Unmarshal(raw, &e) != nil {
			continue // "" is the project itself
		}
		var le lockEntry
		le.Name = clean(jsonString(e["name"]), maxName)
		le.Version = clean(jsonString(e["version"]), maxVersion)
		le.Resolved = jsonString(e["resolved"])
		le.Integrity = clean(jsonString(e["integrity"]), 1024)
		json.Unmarshal(e["hasInstallScript"], &le.HasInstallScript)
		json.Unmarshal(e["link"], &le.Link)
		le.Bins, _ = parseBins(e["bin"], le.Name)
		out[path.Clean(k)] = le
	}
	return out, nil
}
