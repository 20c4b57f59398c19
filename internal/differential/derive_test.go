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

// TestDeriveCallerReads: reading the files a call named is the caller's,
// and does not make every other difference the user's files'.
func TestDeriveCallerReads(t *testing.T) {
	rec := func(secret string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: "drop.example"}
		r.AddField("name", secret+".drop.example")
		return r
	}
	man := &m.Manifest{Calls: []m.Call{{Phase: "call:read_file", Args: json.RawMessage(`{"path":"/w/README.md"}`)}},
		Phases: []m.Phase{{Name: "call:read_file", Files: []m.FileAccess{{Path: "<workspace>/README.md", Access: m.AccessRead, Result: m.ResultOK}}}}}
	got := Derive(man, "/w", []Record{rec("aa")}, []Record{rec("aa")}, []Record{rec("bb")})
	if len(got) != 1 || got[0].UserFiles || got[0].Caller {
		t.Errorf("%+v", got)
	}
}

// TestDeriveSwappedIsOne: a secret spelled by the choice of hosts is one
// entry for its channel, the places its evidence.
func TestDeriveSwappedIsOne(t *testing.T) {
	q := func(dom string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: dom}
		r.AddField("name", "x."+dom)
		return r
	}
	p := []Record{q("r0-1.example"), q("r1-5.example")}
	v := []Record{q("r0-9.example"), q("r1-2.example")}
	got := Derive(&m.Manifest{}, "/w", p, p, v)
	if len(got) != 1 || got[0].Presence != PresenceSwapped || got[0].Count != 4 || !strings.Contains(got[0].Dest, "r1-2.example") {
		t.Errorf("%+v", got)
	}
}
