package policy

import (
	"encoding/json"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// contractManifest is a server with one tool of the given annotations
// whose call's phase is ph.
func contractManifest(annotations string, ph m.Phase) *m.Manifest {
	ph.Name = "call:t"
	return &m.Manifest{
		Target: m.Target{Name: "notes-server", Supplied: []string{"db.supplied.example"}},
		Tools:  []m.Tool{{Name: "t", Annotations: json.RawMessage(annotations)}},
		Calls: []m.Call{{Phase: "call:shot", Kind: "tool", Name: "shot", Args: json.RawMessage(`{"filename":"shot.png"}`)},
			{Phase: "call:read", Kind: "tool", Name: "read", Args: json.RawMessage(`{"path":"/home/dev/workspace/plan.md"}`)},
			{Phase: "call:t", Kind: "tool", Name: "t", Args: json.RawMessage(`{"path":"/home/dev/workspace/README.md","filename":"t-out.png"}`)}},
		Phases: []m.Phase{{Name: m.PhaseStartup, Network: []m.Connection{{Name: "timer.example", Category: m.ConnEgress}}}, ph},
	}
}

// TestToolContract: a call that does what its tool's annotations deny is
// high, with the claim and the effect; the same effects under honest
// annotations, background work, supplied hosts and the server's own data
// are not.
func TestToolContract(t *testing.T) {
	write := func(p string) m.FileAccess {
		return m.FileAccess{Path: p, Access: m.AccessWrite, Category: m.CatWorkspace, Result: m.ResultOK}
	}
	egress := func(h string) m.Connection {
		return m.Connection{Proto: "tcp", Op: "connect", Name: h, Port: 443, Category: m.ConnEgress}
	}
	wiped := []m.DestroyedFile{{Path: "<workspace>/README.md", How: m.DestroyDeleted}}
	for _, tc := range []struct {
		name, annotations string
		ph                m.Phase
		want              string // subject of the contract finding, "" for none
	}{
		{"read-only writes", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/out.txt")}}, "t readOnlyHint"},
		{"read-only deletes", `{"readOnlyHint":true}`, m.Phase{Destroyed: wiped}, "t readOnlyHint"},
		{"read-only writes a visible home file", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{{Path: "~/Documents/a.txt", Access: m.AccessCreate, Category: m.CatHome, Result: m.ResultOK}}}, "t readOnlyHint"},
		{"closed world contacts a host", `{"openWorldHint":false}`, m.Phase{Network: []m.Connection{egress("collect.evil.example")}}, "t openWorldHint"},
		{"non-destructive deletes", `{"readOnlyHint":false,"destructiveHint":false}`, m.Phase{Destroyed: wiped}, "t destructiveHint"},
		{"honest writer", `{"readOnlyHint":false,"destructiveHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/out.txt")}, Destroyed: wiped}, ""},
		{"no annotations", ``, m.Phase{Files: []m.FileAccess{write("<workspace>/out.txt")}, Network: []m.Connection{egress("api.example")}}, ""},
		{"read-only, git's index", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/.git/index")}}, ""},
		{"read-only, a program's dot-directory", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{{Path: "~/.mcp/log.txt", Access: m.AccessWrite, Category: m.CatHome, Result: m.ResultOK}}}, ""},
		{"read-only, a failed write", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{{Path: "<workspace>/x", Access: m.AccessWrite, Category: m.CatWorkspace, Result: m.ResultDenied}}}, ""},
		{"closed world, supplied host", `{"openWorldHint":false}`, m.Phase{Network: []m.Connection{egress("db.supplied.example")}}, ""},
		{"closed world, background host", `{"openWorldHint":false}`, m.Phase{Network: []m.Connection{egress("timer.example")}}, ""},
		{"closed world, after the answer", `{"openWorldHint":false}`, m.Phase{Network: []m.Connection{{Name: "late.example", Category: m.ConnEgress, AfterAnswer: true}}}, ""},
		{"unparsable annotations", `{"readOnlyHint":"yes"}`, m.Phase{Files: []m.FileAccess{write("<workspace>/out.txt")}}, ""},
		{"read-only writes the file its own call named", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/README.md")}}, "t readOnlyHint"},
		{"read-only, an earlier call's file landing late", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/shot.png")}}, ""},
		{"read-only destroys a file an earlier call named", `{"readOnlyHint":true}`, m.Phase{Destroyed: []m.DestroyedFile{{Path: "<workspace>/shot.png", How: m.DestroyDeleted}}}, "t readOnlyHint"},
		{"read-only writes a file an earlier call only read", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/plan.md")}}, "t readOnlyHint"},
		{"read-only writes the output its own call asked for", `{"readOnlyHint":true}`, m.Phase{Files: []m.FileAccess{write("<workspace>/t-out.png")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Evaluate(contractManifest(tc.annotations, tc.ph), Policy{}) {
				if f.Kind == KindContract {
					got = append(got, f)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected %+v", got)
			case tc.want != "" && (len(got) != 1 || got[0].Subject != tc.want || got[0].Severity != High):
				t.Errorf("findings %+v, want one high %q", got, tc.want)
			}
		})
	}
}
