package classify

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// TestLifecycleByAncestry: the first program npm (the plumbing root's
// child) starts is the lifecycle script's shell, whatever its argv looks
// like; a shell that script starts, or one the script's shell exec's in
// place, is not.
func TestLifecycleByAncestry(t *testing.T) {
	ev := parse(t, `10    101.000001 execve("/usr/bin/setpriv", ["setpriv", "sh", "-c", "npm rebuild"], 0x1 /* 5 vars */) = 0
10    101.000002 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 11
11    101.000003 execve("/usr/local/bin/node", ["node", "/usr/local/bin/npm", "rebuild"], 0x1 /* 5 vars */) = 0
11    101.000004 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 12
12    101.000005 execve("/bin/sh", ["sh", "/tmp/npm-lifecycle-1.sh"], 0x1 /* 5 vars */) = 0
12    101.000006 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 13
13    101.000007 execve("/bin/sh", ["/bin/sh", "-c", "pkg-config --modversion vips"], 0x1 /* 5 vars */) = 0
12    101.000008 execve("/bin/sh", ["sh", "-c", "node build.js"], 0x1 /* 5 vars */) = 0
`)
	phases := Classify(Input{Layout: layout, Events: ev, PlumbingRoot: 10,
		Windows: []Window{{Name: m.PhaseInstall, Start: time.Unix(100, 0)}}}).Phases
	got := map[string]bool{}
	for _, p := range phases[0].Processes {
		got[strings.Join(p.Argv, " ")] = p.Lifecycle
	}
	want := map[string]bool{"sh /tmp/npm-lifecycle-*.sh": true, "/bin/sh -c pkg-config --modversion vips": false, "sh -c node build.js": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lifecycle marks (-want +got):\n%s", diff)
	}
}

// seededSet is a canary set with a few realistic user files besides the
// decoys.
func seededSet() *canary.Set {
	cs := canary.Generate(nil)
	cs.Files = append(cs.Files,
		canary.File{Path: "<workspace>/src/app.js", Content: []byte("export function main() {\n  return 42;\n}\n")},
		canary.File{Path: "<workspace>/docs/plan.md", Content: []byte("# Plan\n\nShip the release on Friday.\n")},
		canary.File{Path: "<workspace>/notes.txt", Content: []byte("call the bank about the mortgage\n")},
		canary.File{Path: "<workspace>/.git/index", Content: []byte("DIRC")},
	)
	return cs
}

// TestDestroyedFiles: deleting, cutting, rewriting and moving away files
// that existed before the run are destroyed, with the phase of the call;
// an append, an atomic save of the same text and git's own files are not;
// random bytes in place of readable text, or beside a deleted file, are
// high entropy.
func TestDestroyedFiles(t *testing.T) {
	t0 := time.Unix(100, 0)
	random := make([]byte, 300)
	rand.Read(random)
	ev := parse(t, `5 101.1 unlink("/home/dev/workspace/README.md") = 0
5 101.2 openat(AT_FDCWD, "/home/dev/workspace/src/app.js", O_WRONLY|O_TRUNC) = 3</home/dev/workspace/src/app.js>
5 101.3 rename("/home/dev/workspace/docs/plan.md", "/home/dev/workspace/docs/plan.md.locked") = 0
5 101.4 openat(AT_FDCWD, "/home/dev/workspace/notes.txt", O_WRONLY|O_APPEND) = 3</home/dev/workspace/notes.txt>
5 101.5 openat(AT_FDCWD, "/home/dev/workspace/.git/index", O_WRONLY|O_TRUNC) = 3</home/dev/workspace/.git/index>
5 102.1 truncate("/home/dev/.gitconfig", 0) = 0
`)
	cs := seededSet()
	phases := Classify(Input{
		Layout: layout, Events: ev, Canaries: cs,
		Windows: []Window{{Name: m.PhaseStartup, Start: t0}, {Name: "call:wipe", Start: t0.Add(time.Second)}, {Name: "call:git", Start: t0.Add(2 * time.Second)}},
		Written: []WrittenFile{
			{Path: "/home/dev/workspace/src/app.js", ModTime: t0, Data: random},
			{Path: "/home/dev/workspace/docs/plan.md.locked", ModTime: t0, Data: []byte(base64.StdEncoding.EncodeToString(random))},
			{Path: "/home/dev/workspace/README.md.enc", ModTime: t0, Data: random[:64]},
			{Path: "/home/dev/workspace/notes.txt", ModTime: t0, Data: []byte("call the bank about the mortgage\nand the car\n")},
			{Path: "/home/dev/workspace/.git/index", ModTime: t0, Data: []byte("DIRC2")},
		},
	}).Phases
	got := map[string][]m.DestroyedFile{}
	for _, p := range phases {
		if len(p.Destroyed) > 0 {
			got[p.Name] = p.Destroyed
		}
	}
	want := map[string][]m.DestroyedFile{
		"call:wipe": {
			{Path: "<workspace>/README.md", How: m.DestroyDeleted, HighEntropy: true, Written: "<workspace>/README.md.enc"},
			{Path: "<workspace>/docs/plan.md", How: m.DestroyMoved, Target: "<workspace>/docs/plan.md.locked", HighEntropy: true, Written: "<workspace>/docs/plan.md.locked"},
			{Path: "<workspace>/src/app.js", How: m.DestroyReplaced, HighEntropy: true},
		},
		"call:git": {{Path: "~/.gitconfig", How: m.DestroyTruncated}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("destroyed (-want +got):\n%s", diff)
	}
}

// TestDestroyedControls: a rewrite with the same text (an atomic save),
// and a file changed only in mode, destroy nothing; a file rewritten with
// other text is replaced but not high entropy.
func TestDestroyedControls(t *testing.T) {
	t0 := time.Unix(100, 0)
	cs := seededSet()
	ev := parse(t, `5 101.1 openat(AT_FDCWD, "/home/dev/workspace/tmp.1", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</home/dev/workspace/tmp.1>
5 101.2 rename("/home/dev/workspace/tmp.1", "/home/dev/workspace/README.md") = 0
5 101.3 chmod("/home/dev/workspace/notes.txt", 0600) = 0
5 101.4 openat(AT_FDCWD, "/home/dev/workspace/src/app.js", O_WRONLY|O_TRUNC) = 3</home/dev/workspace/src/app.js>
`)
	phases := Classify(Input{
		Layout: layout, Events: ev, Canaries: cs, Windows: []Window{{Name: "call:save", Start: t0}},
		Written: []WrittenFile{
			{Path: "/home/dev/workspace/README.md", ModTime: t0, Data: []byte(decoy(cs, "<workspace>/README.md"))},
			{Path: "/home/dev/workspace/notes.txt", ModTime: t0, Data: []byte(decoy(cs, "<workspace>/notes.txt"))},
			{Path: "/home/dev/workspace/src/app.js", ModTime: t0, Data: []byte("export const main = () => 43;\n")},
		},
	}).Phases
	want := []m.DestroyedFile{{Path: "<workspace>/src/app.js", How: m.DestroyReplaced}}
	if diff := cmp.Diff(want, phases[0].Destroyed); diff != "" {
		t.Errorf("destroyed (-want +got):\n%s", diff)
	}
}

// TestEntropy: random bytes and their base64 and hex are high entropy at
// any length the rule measures; prose, source code and a short string are
// not.
func TestEntropy(t *testing.T) {
	random := make([]byte, 4096)
	rand.Read(random)
	hex := []byte(strings.Repeat("0123456789abcdef", 8))
	rand.Read(hex[:0])
	for i := range hex {
		hex[i] = "0123456789abcdef"[random[i]%16]
	}
	prose := bytes.Repeat([]byte("The quick brown fox jumps over the lazy dog, then naps. "), 40)
	code := bytes.Repeat([]byte("func main() {\n\tfmt.Println(\"hello, world\", 42)\n}\n"), 30)
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"random 4096", random, true},
		{"random 48", random[:48], true},
		{"base64", []byte(base64.StdEncoding.EncodeToString(random[:600])), true},
		{"hex", hex, true},
		{"prose", prose, false},
		{"code", code, false},
		{"short", random[:16], false},
	} {
		if got := highEntropy(tc.b); got != tc.want {
			t.Errorf("%s: highEntropy %v (%.2f bits/byte), want %v", tc.name, got, shannon(tc.b), tc.want)
		}
	}
	if !readable(prose) || readable(random) {
		t.Error("readable: prose must be, random bytes must not")
	}
}

// TestProbes: what a listener served is listed with the headers that
// matter, canaries redacted in the excerpt and found as served hits.
func TestProbes(t *testing.T) {
	t0 := time.Unix(100, 0)
	cs := canary.Generate(nil)
	key, value, _ := strings.Cut(cs.EnvList()[0], "=")
	phases := Classify(Input{Layout: layout, Canaries: cs, Windows: []Window{{Name: m.PhaseStartup, Start: t0}, {Name: m.PhaseIdle, Start: t0.Add(time.Second)}},
		ProbedAt: t0.Add(2 * time.Second),
		Probes: []sinklog.Probe{{Address: "127.0.0.1", Port: 8080, Request: "GET /.env", Status: 200,
			Headers: []string{"Access-Control-Allow-Origin: *", "X-Trace: 7", "Content-Type: text/plain"}, Body: []byte("TOKEN=" + value + "\n")}},
	}).Phases
	idle := phases[1]
	if len(idle.Probes) != 1 || len(idle.Canaries) != 1 {
		t.Fatalf("probes %+v, canaries %+v", idle.Probes, idle.Canaries)
	}
	p, h := idle.Probes[0], idle.Canaries[0]
	if diff := cmp.Diff([]string{"Access-Control-Allow-Origin: *", "Content-Type: text/plain"}, p.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if strings.Contains(p.Excerpt, value) || !strings.Contains(p.Excerpt, "TOKEN=") || p.Bytes == 0 || !strings.HasPrefix(p.Digest, "sha256:") {
		t.Errorf("probe %+v", p)
	}
	if h.Canary != "env:"+key || h.How != m.HowServed || h.Evidence != "127.0.0.1:8080 GET /.env" {
		t.Errorf("hit %+v", h)
	}
}
