package deptree

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var installRoots = []string{"<pkg>", "<deps>", "/tmp"}

func TestErasures(t *testing.T) {
	const dep = "<deps>/plain-crypto-js"
	for _, tc := range []struct {
		name   string
		events []FileEvent
		want   []Erasure
	}{
		{"a postinstall drops a payload, runs it and erases itself (axios 1.14.1)",
			[]FileEvent{
				{Path: "/tmp/ld.py", Op: OpCreate}, {Path: "/tmp/ld.py", Op: OpExec}, {Path: "/tmp/ld.py", Op: OpDelete},
				{Path: dep + "/setup.js", Op: OpDelete},
				{Path: dep + "/package.json", Op: OpDelete},
				{Path: dep + "/package.md", Op: OpRename, Target: dep + "/package.json"},
			},
			[]Erasure{
				{Kind: EraseDropped, Path: "/tmp/ld.py", Ops: []string{"create", "exec", "delete"}, Severity: High},
				{Kind: EraseExisting, Path: dep + "/package.json", Ops: []string{"delete"}, Severity: Medium},
				{Kind: EraseManifest, Path: dep + "/package.md", Ops: []string{"rename " + dep + "/package.json"}, Severity: High},
				{Kind: EraseExisting, Path: dep + "/setup.js", Ops: []string{"delete"}, Severity: Medium},
			}},
		{"a payload moved before it runs is followed through the rename",
			[]FileEvent{
				{Path: "/tmp/a", Op: OpCreate}, {Path: "/tmp/a", Op: OpRename, Target: "<pkg>/.cache/b"},
				{Path: "<pkg>/.cache/b", Op: OpExec}, {Path: "<pkg>/.cache/b", Op: OpDelete},
			},
			[]Erasure{{Kind: EraseDropped, Path: "/tmp/a", Ops: []string{"create", "rename <pkg>/.cache/b", "exec", "delete"}, Severity: High}}},
		{"control: a node-gyp build's temporaries are low, what it keeps is nothing",
			[]FileEvent{
				{Path: "<deps>/native/build/Release/.deps/x.o.d.raw", Op: OpCreate},
				{Path: "<deps>/native/build/Release/.deps/x.o.d.raw", Op: OpDelete},
				{Path: "<deps>/native/build/Release/obj.target/x.node", Op: OpCreate},
				{Path: "<deps>/native/build/Release/x.node", Op: OpCreate},
				{Path: "/usr/bin/g++", Op: OpExec},
			},
			[]Erasure{{Kind: EraseTransient, Path: "<deps>/native/build/Release/.deps/x.o.d.raw", Ops: []string{"create", "delete"}, Severity: Low}}},
		{"control: a program run from the image is no payload, and paths outside the roots are not judged",
			[]FileEvent{
				{Path: "/usr/bin/node", Op: OpExec}, {Path: "/home/dev/.cache/x", Op: OpCreate}, {Path: "/home/dev/.cache/x", Op: OpDelete},
			}, nil},
		{"an install script that rewrites its package.json",
			[]FileEvent{{Path: "<pkg>/package.json", Op: OpWrite}},
			[]Erasure{{Kind: EraseManifest, Path: "<pkg>/package.json", Ops: []string{"write"}, Severity: High}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, omitted := Erasures(tc.events, installRoots)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("erasures (-want +got):\n%s", d)
			}
			if omitted != 0 {
				t.Errorf("omitted %d", omitted)
			}
		})
	}
}

func TestErasuresBound(t *testing.T) {
	old := limits
	t.Cleanup(func() { limits = old })
	limits.fileEvents = 2
	events := []FileEvent{{Path: "/tmp/a", Op: OpCreate}, {Path: "/tmp/a", Op: OpExec}, {Path: "/tmp/a", Op: OpDelete}}
	got, omitted := Erasures(events, installRoots)
	if omitted != 1 || len(got) != 0 {
		t.Errorf("past the bound: %v, %d omitted; want nothing judged and 1 omitted", got, omitted)
	}
}
