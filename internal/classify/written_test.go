package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestWrittenFiles: a canary value in a workspace file the server wrote is
// a hit in the phase whose trace wrote it (else by modification time); a
// decoy file is not searched (it holds its own value).
func TestWrittenFiles(t *testing.T) {
	t0 := time.Unix(100, 0)
	cs := canary.Generate(nil)
	token := cs.EnvList()[0]
	key, value, _ := strings.Cut(token, "=")
	name := "env:" + key
	ev := parse(t, `5 101.5 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/README.md", O_WRONLY|O_APPEND) = 3</home/dev/workspace/README.md>
`)
	phases := Classify(Input{
		Layout: layout, Events: ev, Canaries: cs,
		Windows: []Window{{Name: m.PhaseStartup, Start: t0, End: t0.Add(time.Second)}, {Name: m.PhaseIdle, Start: t0.Add(time.Second)}},
		Written: []WrittenFile{
			{Path: "/home/dev/workspace/README.md", ModTime: t0, Data: []byte("# notes\ntoken = " + value + "\n")},
			{Path: "/home/dev/workspace/new.txt", ModTime: t0.Add(500 * time.Millisecond), Data: []byte(value)},
			{Path: "/home/dev/workspace/plain.txt", ModTime: t0, Data: []byte("nothing here")},
			{Path: "/home/dev/workspace/.env", ModTime: t0, Data: []byte(decoy(cs, canary.WorkspaceEnv))},
		},
	}).Phases
	got := map[string]string{}
	for _, p := range phases {
		for _, h := range p.Canaries {
			got[h.Evidence] = p.Name + " " + h.Canary + " " + h.How
		}
	}
	want := map[string]string{
		"<workspace>/README.md": "idle " + name + " written-to-file", // the trace's write, not the forged time
		"<workspace>/new.txt":   "startup " + name + " written-to-file",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("hits %v, want only %v", got, want)
	}
}

func decoy(cs *canary.Set, p string) string {
	for _, f := range cs.Files {
		if f.Path == p {
			return string(f.Content)
		}
	}
	return ""
}
