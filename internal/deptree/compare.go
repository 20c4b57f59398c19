package deptree

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Change operations.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Change kinds.
const (
	ChangeDependency    = "dependency"     // a package or distribution added or removed
	ChangeVersion       = "version"        // its installed versions changed
	ChangeIntegrity     = "integrity"      // the same version with other content
	ChangeInstallScript = "install-script" // an existing package gained or changed an install script
	ChangeBin           = "bin"            // it gained an executable (bin, console script)
	ChangeHook          = "startup-hook"   // a .pth or sitecustomize/usercustomize
	ChangeIncomplete    = "incomplete"     // the new tree passed its bounds
)

// Ecosystems of a change.
const (
	NPM  = "npm"
	PyPI = "pypi"
)

// Change is one difference between two trees, with the weight the issue's
// rules give it; the caller turns changes into findings.
type Change struct {
	Op        string `json:"op"`
	Kind      string `json:"kind"`
	Ecosystem string `json:"ecosystem"`
	// Subject is the package's name, or a hook's path.
	Subject  string   `json:"subject"`
	Detail   string   `json:"detail,omitempty"`
	Severity Severity `json:"severity"`
}

// Compare lists what changed from old to new, sorted. The weights:
//   - a new dependency with an install script: high (the axios 1.14.1
//     pattern); a new one without: info;
//   - the same version with a different integrity or RECORD: critical
//     (the registry or a mirror serves other code under a version that
//     was reviewed);
//   - an existing package that gains an install script: high; one whose
//     install script changes: medium;
//   - a start-up hook that executes code, added or with changed lines:
//     high (the litellm 1.82.7 pattern); other hook changes: info;
//   - a new bin or console script: low; versions changed, removed
//     packages: info;
//   - a new tree past its bounds: high, since what was left out is not
//     compared.
//
// A nil old tree (a baseline recorded before trees were) gives nothing.
func Compare(old, new *Tree) []Change {
	if old == nil || new == nil {
		return nil
	}
	var out []Change
	out = append(out, compareNPM(old, new)...)
	out = append(out, comparePython(old, new)...)
	out = append(out, compareHooks(old.Hooks, new.Hooks)...)
	if !new.Complete() {
		var parts []string
		for _, o := range new.Omitted {
			parts = append(parts, fmt.Sprintf("%d %s", o.Count, o.What))
		}
		out = append(out, Change{Op: Changed, Kind: ChangeIncomplete, Subject: "tree", Severity: High,
			Detail: "the installed tree passed its bounds (" + strings.Join(parts, ", ") + " left out): what they hold is not compared"})
	}
	slices.SortFunc(out, func(a, b Change) int {
		return cmp.Or(strings.Compare(a.Ecosystem, b.Ecosystem), strings.Compare(a.Subject, b.Subject),
			strings.Compare(a.Kind, b.Kind), strings.Compare(a.Op, b.Op), strings.Compare(a.Detail, b.Detail))
	})
	return out
}

func byName(pkgs []NPMPackage) map[string][]NPMPackage {
	out := map[string][]NPMPackage{}
	for _, p := range pkgs {
		out[p.Name] = append(out[p.Name], p)
	}
	return out
}

func compareNPM(old, new *Tree) []Change {
	var out []Change
	before, after := byName(old.NPM), byName(new.NPM)
	for _, name := range sortedKeys(after) {
		now := after[name]
		was, ok := before[name]
		if !ok {
			out = append(out, addedNPM(name, now, new))
			continue
		}
		out = append(out, changedNPM(name, was, now)...)
	}
	for _, name := range sortedKeys(before) {
		if _, ok := after[name]; !ok {
			out = append(out, Change{Op: Removed, Kind: ChangeDependency, Ecosystem: NPM, Subject: name,
				Detail: versions(before[name]), Severity: Info})
		}
	}
	return out
}

func addedNPM(name string, now []NPMPackage, t *Tree) Change {
	c := Change{Op: Added, Kind: ChangeDependency, Ecosystem: NPM, Subject: name, Severity: Info}
	parts := []string{versions(now)}
	if s := installScripts(now); s != "" {
		c.Severity = High
		parts = append(parts, "install script "+s)
	}
	if b := binNames(now); len(b) > 0 {
		parts = append(parts, "bin "+strings.Join(b, ", "))
	}
	if r := requiredBy(t, name); r != "" {
		parts = append(parts, "required by "+r)
	}
	c.Detail = clip(strings.Join(parts, "; "))
	return c
}

func changedNPM(name string, was, now []NPMPackage) []Change {
	var out []Change
	add := func(kind string, sev Severity, detail string) {
		out = append(out, Change{Op: Changed, Kind: kind, Ecosystem: NPM, Subject: name, Detail: clip(detail), Severity: sev})
	}
	if a, b := versions(was), versions(now); a != b {
		add(ChangeVersion, Info, a+" → "+b)
	}
	for _, v := range sortedVersions(now) {
		oldInt, newInt := integrities(was, v), integrities(now, v)
		for _, i := range newInt {
			if len(oldInt) > 0 && !slices.Contains(oldInt, i) {
				add(ChangeIntegrity, Critical, v+": "+strings.Join(oldInt, ", ")+" → "+i)
			}
		}
	}
	switch a, b := installScripts(was), installScripts(now); {
	case a == "" && b != "":
		add(ChangeInstallScript, High, "gained install script "+b)
	case a != b && b != "":
		add(ChangeInstallScript, Medium, "install script "+a+" → "+b)
	}
	if gained := newItems(binNames(was), binNames(now)); len(gained) > 0 {
		add(ChangeBin, Low, "gained bin "+strings.Join(gained, ", "))
	}
	return out
}

// versions lists the installed versions of one name, sorted.
func versions(pkgs []NPMPackage) string { return strings.Join(sortedVersions(pkgs), ", ") }

func sortedVersions(pkgs []NPMPackage) []string {
	var v []string
	for _, p := range pkgs {
		v = append(v, p.Version)
	}
	slices.Sort(v)
	return slices.Compact(v)
}

func integrities(pkgs []NPMPackage, version string) []string {
	var out []string
	for _, p := range pkgs {
		if p.Version == version && p.Integrity != "" {
			out = append(out, p.Integrity)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// installScripts describes the install-time scripts of a name's
// instances ("postinstall: node setup.js"), "" when none has any.
func installScripts(pkgs []NPMPackage) string {
	var parts []string
	for _, p := range pkgs {
		for _, s := range p.Scripts {
			if slices.Contains(installLifecycle, s.Name) {
				parts = append(parts, s.Name+": "+s.Command)
			}
		}
		if p.InstallScript && !hasScript(p.Scripts, installLifecycle...) {
			parts = append(parts, "(the lockfile's hasInstallScript)")
		}
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), "; ")
}

func binNames(pkgs []NPMPackage) []string {
	var out []string
	for _, p := range pkgs {
		for _, b := range p.Bins {
			out = append(out, b.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// requiredBy names up to three packages of t that declare a dependency on
// name.
func requiredBy(t *Tree, name string) string {
	var who []string
	for _, p := range t.NPM {
		for _, r := range p.Requires {
			if r.Name == name {
				who = append(who, p.Name+"@"+p.Version+" ("+r.Range+")")
			}
		}
	}
	slices.Sort(who)
	who = slices.Compact(who)
	if len(who) > 3 {
		return strings.Join(who[:3], ", ") + fmt.Sprintf(" and %d more", len(who)-3)
	}
	return strings.Join(who, ", ")
}

func newItems(before, after []string) []string {
	var out []string
	for _, x := range after {
		if !slices.Contains(before, x) {
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// clip bounds a change's detail.
func clip(s string) string { return clean(s, 600) }
