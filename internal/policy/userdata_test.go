package policy

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestUserData: a destroyed file the call did not name is medium; three
// in a phase are high each; random bytes in place of text are high even
// when the call named the file; a file the call named is no finding.
func TestUserData(t *testing.T) {
	d := func(p, how string, random bool) m.DestroyedFile {
		return m.DestroyedFile{Path: p, How: how, HighEntropy: random}
	}
	for _, tc := range []struct {
		name      string
		args      string
		destroyed []m.DestroyedFile
		want      map[string]Severity
	}{
		{"one unnamed", `{"text":"hi"}`, []m.DestroyedFile{d("<workspace>/README.md", m.DestroyDeleted, false)},
			map[string]Severity{"<workspace>/README.md": Medium}},
		{"three unnamed", `{}`, []m.DestroyedFile{d("<workspace>/a.md", m.DestroyDeleted, false), d("<workspace>/b.md", m.DestroyTruncated, false),
			d("~/notes.txt", m.DestroyMoved, false)}, map[string]Severity{"<workspace>/a.md": High, "<workspace>/b.md": High, "~/notes.txt": High}},
		{"encrypted", `{}`, []m.DestroyedFile{d("<workspace>/a.md", m.DestroyReplaced, true)}, map[string]Severity{"<workspace>/a.md": High}},
		{"named, absolute", `{"path":"/home/dev/workspace/README.md"}`, []m.DestroyedFile{d("<workspace>/README.md", m.DestroyDeleted, false)}, nil},
		{"named, its directory", `{"dir":"src"}`, []m.DestroyedFile{d("<workspace>/src/a.js", m.DestroyDeleted, false),
			d("<workspace>/src/b.js", m.DestroyDeleted, false), d("<workspace>/src/c.js", m.DestroyDeleted, false)}, nil},
		{"named, a glob", `{"pattern":"*.md"}`, []m.DestroyedFile{d("<workspace>/a.md", m.DestroyDeleted, false)}, nil},
		{"named, but encrypted", `{"path":"README.md"}`, []m.DestroyedFile{d("<workspace>/README.md", m.DestroyReplaced, true)},
			map[string]Severity{"<workspace>/README.md": High}},
		{"the workspace named is no file named", `{"root":"/home/dev/workspace"}`, []m.DestroyedFile{d("<workspace>/README.md", m.DestroyDeleted, false)},
			map[string]Severity{"<workspace>/README.md": Medium}},
		{"a default of the tool's own schema", `{"path":"notes.md"}`, []m.DestroyedFile{d("<workspace>/notes.md", m.DestroyDeleted, false)},
			map[string]Severity{"<workspace>/notes.md": Medium}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			man := &m.Manifest{
				Tools:  []m.Tool{{Name: "t", InputSchema: json.RawMessage(`{"properties":{"path":{"type":"string","default":"notes.md"}}}`)}},
				Calls:  []m.Call{{Phase: "call:t", Kind: "tool", Name: "t", Args: json.RawMessage(tc.args)}},
				Phases: []m.Phase{{Name: "call:t", Destroyed: tc.destroyed}},
			}
			got := map[string]Severity{}
			for _, f := range Evaluate(man, Policy{}) {
				if f.Kind == KindDestroyed {
					got[f.Subject] = f.Severity
				}
			}
			if len(tc.want) == 0 {
				tc.want = map[string]Severity{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentSentByWhatTheCallNamed: a workspace file's content sent over
// the network is the caller's (low) only when the call named that file, a
// directory above it or a glob matching it, or named the workspace and
// the host it went to. A call that read one file does not excuse sending
// the others (a theft begun at startup that lands in its window).
func TestContentSentByWhatTheCallNamed(t *testing.T) {
	hit := func(file string) m.CanaryHit {
		return m.CanaryHit{Canary: "content:<workspace>/" + file, How: m.HowSent, Evidence: "http POST up.files.example/upload"}
	}
	for _, tc := range []struct {
		name string
		args string
		want Severity
	}{
		{"the file named", `{"path":"/home/dev/workspace/README.md"}`, Low},
		{"its directory named", `{"dir":"/home/dev/workspace/docs"}`, Low},
		{"a glob matching it", `{"pattern":"/home/dev/workspace/docs/*.md"}`, Low},
		{"a relative directory, the workspace not named", `{"dir":"docs"}`, High},
		{"a relative glob, the workspace not named", `{"pattern":"*"}`, High},
		{"the workspace and the host named", `{"root":"/home/dev/workspace","url":"https://up.files.example/upload"}`, Low},
		{"another host of its domain named", `{"root":"/home/dev/workspace","url":"https://api.files.example/"}`, Low},
		{"another file named", `{"path":"/home/dev/workspace/notes.md"}`, High},
		{"the workspace named, not the host", `{"root":"/home/dev/workspace"}`, High},
		{"the host named, not the workspace", `{"url":"https://up.files.example/upload"}`, High},
		{"nothing named", `{"text":"hi"}`, High},
	} {
		t.Run(tc.name, func(t *testing.T) {
			man := &m.Manifest{
				Tools:  []m.Tool{{Name: "t"}},
				Calls:  []m.Call{{Phase: "call:t", Kind: "tool", Name: "t", Args: json.RawMessage(tc.args)}},
				Phases: []m.Phase{{Name: "call:t", Canaries: []m.CanaryHit{hit("docs/plan.md")}}},
			}
			if tc.name == "the file named" {
				man.Phases[0].Canaries = []m.CanaryHit{hit("README.md")}
			}
			var got []Severity
			for _, f := range Evaluate(man, Policy{}) {
				if f.Kind == KindUserFile {
					got = append(got, f.Severity)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("user-file findings %v, want one %s", got, tc.want)
			}
		})
	}
}
