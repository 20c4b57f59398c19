package differential

import (
	"encoding/json"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestDerive: the manifest's entries name the fields and their lengths,
// never a value; a call that named workspace files marks its phase's
// entries the caller's, and a run that read them marks every entry.
func TestDerive(t *testing.T) {
	rec := func(phase, secret string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "drop.example POST"}
		r.AddText("body", `{"d":"`+secret+`"}`)
		return r
	}
	man := &m.Manifest{Calls: []m.Call{{Phase: "call:push", Args: json.RawMessage(`{"path":"/w/src"}`)}}}
	p := []Record{rec("startup", "ghp_AAAA"), rec("call:push", "ghp_AAAA")}
	v := []Record{rec("startup", "ghp_BBBB"), rec("call:push", "ghp_BBBB")}
	got := Derive(man, "/w", p, p, v)
	if len(got) != 2 {
		t.Fatalf("derived %+v", got)
	}
	for _, d := range got {
		if d.Caller != (d.Phase == "call:push") || d.UserFiles {
			t.Errorf("%+v", d)
		}
		if len(d.Fields) != 1 || d.Fields[0] != "body.d (8 characters)" || strings.Contains(d.Fields[0], "ghp_") {
			t.Errorf("fields %q", d.Fields)
		}
	}
	man.Phases = []m.Phase{{Name: "startup", Files: []m.FileAccess{{Path: "<workspace>/src/index.js", Access: m.AccessRead, Result: m.ResultOK}}}}
	if got := Derive(man, "/w", p, p, v); !got[0].UserFiles {
		t.Errorf("user files read: %+v", got[0])
	}
}
