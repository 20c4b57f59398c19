package deptree

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnpinnedFixture(t *testing.T) {
	tree, err := ReadNPM(unpack(t, "npm-basic"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// helper (^2.0.0) has a postinstall; @scope/native has one too but is
	// pinned; left-pad and the alias reach no scripts.
	want := []UnpinnedRange{{From: "server-x@1.0.0", Name: "helper", Range: "^2.0.0", Resolved: "2.1.0", Reaches: []string{"helper@2.1.0"}}}
	if d := cmp.Diff(want, Unpinned(tree, "node_modules/server-x")); d != "" {
		t.Errorf("unpinned (-want +got):\n%s", d)
	}
}

func TestUnpinned(t *testing.T) {
	at := func(path, name, version string) NPMPackage {
		return NPMPackage{Path: path, Name: name, Version: version}
	}
	server := withRequire(withRequire(at("node_modules/server", "server", "1.0.0"), "axios", "1.14.1"), "cycle-a", "^1.0.0")
	axios := withRequire(at("node_modules/axios", "axios", "1.14.1"), "plain-crypto-js", "^4.2.0")
	plain := withScript(at("node_modules/plain-crypto-js", "plain-crypto-js", "4.2.1"), "postinstall", "node setup.js")
	cycleA := withRequire(at("node_modules/cycle-a", "cycle-a", "1.0.0"), "cycle-b", "1.0.0")
	cycleB := withRequire(at("node_modules/cycle-b", "cycle-b", "1.0.0"), "cycle-a", "^1.0.0")
	unrelated := withScript(at("node_modules/unrelated", "unrelated", "1.0.0"), "install", "x")
	tree := npmTree(server, axios, plain, cycleA, cycleB, unrelated)
	want := []UnpinnedRange{{From: "axios@1.14.1", Name: "plain-crypto-js", Range: "^4.2.0", Resolved: "4.2.1", Reaches: []string{"plain-crypto-js@4.2.1"}}}
	if d := cmp.Diff(want, Unpinned(tree, "node_modules/server")); d != "" {
		t.Errorf("a pinned dependency's own range (-want +got):\n%s", d)
	}
	// The cycle gains an install script: both of its ranges now reach it.
	tree = npmTree(server, axios, plain, withScript(cycleA, "preinstall", "y"), cycleB, unrelated)
	got := Unpinned(tree, "node_modules/server")
	var edges []string
	for _, u := range got {
		edges = append(edges, u.From+" -> "+u.Name+" "+u.Range)
	}
	wantEdges := []string{"axios@1.14.1 -> plain-crypto-js ^4.2.0", "cycle-b@1.0.0 -> cycle-a ^1.0.0", "server@1.0.0 -> cycle-a ^1.0.0"}
	if d := cmp.Diff(wantEdges, edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	if got := Unpinned(tree, "node_modules/absent"); got != nil {
		t.Errorf("an absent start gave %v", got)
	}
}

func TestResolveNested(t *testing.T) {
	tree := npmTree(
		withRequire(NPMPackage{Path: "node_modules/a", Name: "a", Version: "1.0.0"}, "b", "^1"),
		withRequire(NPMPackage{Path: "node_modules/a/node_modules/@s/c", Name: "@s/c", Version: "1.0.0"}, "b", "^2"),
		withScript(NPMPackage{Path: "node_modules/a/node_modules/b", Name: "b", Version: "2.0.0"}, "postinstall", "x"),
		NPMPackage{Path: "node_modules/b", Name: "b", Version: "1.0.0"},
		withRequire(NPMPackage{Path: "node_modules/a/node_modules/@s/c/node_modules/d", Name: "d", Version: "1.0.0"}, "@s/c", "*"),
	)
	idx := map[string]int{}
	for i, p := range tree.NPM {
		idx[p.Path] = i
	}
	g := resolveEdges(tree, idx)
	got := map[string]string{}
	for i, es := range g {
		for _, e := range es {
			got[tree.NPM[i].Path+" "+e.name] = tree.NPM[e.to].Path
		}
	}
	want := map[string]string{
		"node_modules/a b":                                     "node_modules/a/node_modules/b",
		"node_modules/a/node_modules/@s/c b":                   "node_modules/a/node_modules/b",
		"node_modules/a/node_modules/@s/c/node_modules/d @s/c": "node_modules/a/node_modules/@s/c",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("resolution (-want +got):\n%s", d)
	}
}

func TestPinned(t *testing.T) {
	for _, tc := range []struct {
		rng  string
		want bool
	}{
		{"1.2.3", true}, {"=1.2.3", true}, {"v1.2.3", true}, {" 1.2.3 ", true}, {"1.2.3-beta.1", true},
		{"npm:real@1.2.3", true}, {"npm:@s/real@1.2.3", true}, {"file:../x", true}, {"workspace:*", true},
		{"^1.2.3", false}, {"~1.2.3", false}, {"1.2", false}, {"1.x", false}, {"*", false}, {"", false},
		{"latest", false}, {">=1.0.0", false}, {"1.2.3 || 1.2.4", false}, {"npm:real@^1", false}, {"npm:real", false},
	} {
		if got := pinned(tc.rng); got != tc.want {
			t.Errorf("pinned(%q) = %v, want %v", tc.rng, got, tc.want)
		}
	}
}
