package deptree

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func npmTree(pkgs ...NPMPackage) *Tree {
	t := &Tree{NPM: pkgs}
	t.Canonicalize()
	return t
}

func pkg(name, version, integrity string) NPMPackage {
	return NPMPackage{Path: "node_modules/" + name, Name: name, Version: version, Integrity: integrity}
}

func withScript(p NPMPackage, name, cmd string) NPMPackage {
	p.Scripts = append(p.Scripts, Script{Name: name, Command: cmd})
	p.InstallScript = p.InstallScript || name != "prepare"
	return p
}

func withRequire(p NPMPackage, name, rng string) NPMPackage {
	p.Requires = append(p.Requires, Require{Name: name, Range: rng})
	return p
}

func withBin(p NPMPackage, names ...string) NPMPackage {
	for _, n := range names {
		p.Bins = append(p.Bins, Bin{Name: n, Target: n + ".js"})
	}
	return p
}

type sev struct {
	Op, Kind, Subject string
	Severity          Severity
}

func severities(cs []Change) []sev {
	var out []sev
	for _, c := range cs {
		out = append(out, sev{c.Op, c.Kind, c.Subject, c.Severity})
	}
	return out
}

func TestCompareNPM(t *testing.T) {
	server := pkg("server", "1.0.0", "sha512-S")
	axios0 := withRequire(pkg("axios", "1.14.0", "sha512-A0"), "follow-redirects", "^1.15.0")
	axios1 := withRequire(withRequire(pkg("axios", "1.14.1", "sha512-A1"), "follow-redirects", "^1.15.0"), "plain-crypto-js", "^4.2.1")
	follow := pkg("follow-redirects", "1.15.6", "sha512-F")
	for _, tc := range []struct {
		name     string
		old, new *Tree
		want     []sev
	}{
		{"a release adds a dependency whose postinstall runs (axios 1.14.1)",
			npmTree(server, axios0, follow),
			npmTree(server, axios1, follow, withScript(pkg("plain-crypto-js", "4.2.1", "sha512-P"), "postinstall", "node setup.js")),
			[]sev{{Changed, ChangeVersion, "axios", Info}, {Added, ChangeDependency, "plain-crypto-js", High}}},
		{"control: a new dependency without scripts is listed, info",
			npmTree(server, axios0, follow),
			npmTree(server, axios1, follow, pkg("plain-crypto-js", "4.2.1", "sha512-P")),
			[]sev{{Changed, ChangeVersion, "axios", Info}, {Added, ChangeDependency, "plain-crypto-js", Info}}},
		{"control: a new dependency with only prepare (not run for registry packages) is info",
			npmTree(server),
			npmTree(server, withScript(pkg("x", "1.0.0", "sha512-X"), "prepare", "tsc")),
			[]sev{{Added, ChangeDependency, "x", Info}}},
		{"the same version with another integrity is critical",
			npmTree(server, follow),
			npmTree(server, pkg("follow-redirects", "1.15.6", "sha512-OTHER")),
			[]sev{{Changed, ChangeIntegrity, "follow-redirects", Critical}}},
		{"control: identical trees give nothing",
			npmTree(server, axios0, follow), npmTree(server, axios0, follow), nil},
		{"control: another version with another integrity is a version change only",
			npmTree(server, follow), npmTree(server, pkg("follow-redirects", "1.15.9", "sha512-G")),
			[]sev{{Changed, ChangeVersion, "follow-redirects", Info}}},
		{"an existing dependency gains an install script",
			npmTree(server, follow), npmTree(server, withScript(follow, "preinstall", "node x.js")),
			[]sev{{Changed, ChangeInstallScript, "follow-redirects", High}}},
		{"an install script that changes is medium",
			npmTree(server, withScript(follow, "postinstall", "node a.js")),
			npmTree(server, withScript(follow, "postinstall", "node b.js")),
			[]sev{{Changed, ChangeInstallScript, "follow-redirects", Medium}}},
		{"a new bin is low, a removed package info",
			npmTree(server, follow, pkg("gone", "1.0.0", "sha512-Z")),
			npmTree(withBin(server, "server", "git"), follow),
			[]sev{{Removed, ChangeDependency, "gone", Info}, {Changed, ChangeBin, "server", Low}}},
		{"a tree past its bounds is high",
			npmTree(server), &Tree{NPM: []NPMPackage{server}, Omitted: []Omission{{OmitPackages, 3}}},
			[]sev{{Changed, ChangeIncomplete, "tree", High}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, severities(Compare(tc.old, tc.new))); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompareNPMDetail(t *testing.T) {
	axios1 := withRequire(pkg("axios", "1.14.1", "sha512-A1"), "plain-crypto-js", "^4.2.1")
	got := Compare(npmTree(pkg("axios", "1.14.0", "sha512-A0")),
		npmTree(axios1, withScript(pkg("plain-crypto-js", "4.2.1", "sha512-P"), "postinstall", "node setup.js")))
	want := "4.2.1; install script postinstall: node setup.js; required by axios@1.14.1 (^4.2.1)"
	for _, c := range got {
		if c.Subject == "plain-crypto-js" && c.Detail != want {
			t.Errorf("detail %q, want %q", c.Detail, want)
		}
	}
	if Compare(nil, axios1Tree()) != nil {
		t.Error("a baseline without a tree gave changes")
	}
}

func axios1Tree() *Tree { return npmTree(pkg("axios", "1.14.1", "sha512-A1")) }

func TestComparePython(t *testing.T) {
	dist := func(key, version, record string) PyDist {
		return PyDist{Name: key, Key: key, Version: version, RecordDigest: record}
	}
	pth := func(path, digest string, lines ...string) Hook {
		return Hook{Path: path, Kind: HookPth, Digest: digest, Exec: len(lines) > 0, ExecLines: len(lines), Lines: lines}
	}
	site := Hook{Path: "sitecustomize.py", Kind: HookSitecustomize, Digest: "sha256:s", Exec: true}
	server := dist("mcp-server-x", "1.0.0", "sha256:a")
	precedence := pth("distutils-precedence.pth", "sha256:d", "import os; __import__('_distutils_hack')")
	tree := func(hooks []Hook, dists ...PyDist) *Tree {
		t := &Tree{Python: dists, Hooks: hooks}
		t.Canonicalize()
		return t
	}
	for _, tc := range []struct {
		name     string
		old, new *Tree
		want     []sev
	}{
		{"a release adds an executable .pth (litellm 1.82.7)",
			tree([]Hook{precedence}, server, dist("litellm", "1.82.6", "sha256:l")),
			tree([]Hook{precedence, pth("litellm_init.pth", "sha256:x", "import os, subprocess; subprocess.Popen(...)")}, server, dist("litellm", "1.82.7", "sha256:m")),
			[]sev{{Changed, ChangeVersion, "litellm", Info}, {Added, ChangeHook, "litellm_init.pth", High}}},
		{"control: an executable .pth already present is not a change",
			tree([]Hook{precedence}, server), tree([]Hook{precedence}, server), nil},
		{"control: a path-only .pth added is info",
			tree(nil, server), tree([]Hook{pth("x.pth", "sha256:p")}, server),
			[]sev{{Added, ChangeHook, "x.pth", Info}}},
		{"an executable line that changes is high",
			tree([]Hook{precedence}, server), tree([]Hook{pth("distutils-precedence.pth", "sha256:e", "import os; os.system('x')")}, server),
			[]sev{{Changed, ChangeHook, "distutils-precedence.pth", High}}},
		{"control: other content, same executable lines, is info",
			tree([]Hook{precedence}, server), tree([]Hook{pth("distutils-precedence.pth", "sha256:e", precedence.Lines...)}, server),
			[]sev{{Changed, ChangeHook, "distutils-precedence.pth", Info}}},
		{"a path .pth that gains an import line is high",
			tree([]Hook{pth("x.pth", "sha256:p")}, server), tree([]Hook{pth("x.pth", "sha256:q", "import x")}, server),
			[]sev{{Changed, ChangeHook, "x.pth", High}}},
		{"a new sitecustomize is high",
			tree(nil, server), tree([]Hook{site}, server),
			[]sev{{Added, ChangeHook, "sitecustomize.py", High}}},
		{"the same version with another RECORD is critical",
			tree(nil, server), tree(nil, dist("mcp-server-x", "1.0.0", "sha256:b")),
			[]sev{{Changed, ChangeIntegrity, "mcp-server-x", Critical}}},
		{"a new distribution is info, a new console script low",
			tree(nil, server), tree(nil, PyDist{Name: "mcp-server-x", Key: "mcp-server-x", Version: "1.0.0", RecordDigest: "sha256:a",
				EntryPoints: []EntryPoint{{Name: "git", Group: "console_scripts", Target: "x:y"}}}, dist("httpx", "0.28.0", "sha256:h")),
			[]sev{{Added, ChangeDependency, "httpx", Info}, {Changed, ChangeBin, "mcp-server-x", Low}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, severities(Compare(tc.old, tc.new))); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}
