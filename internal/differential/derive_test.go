package differential

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestDerive: the manifest's entries name the fields and their lengths,
// never a value; a call that named workspace files and the host it sends
// to marks its phase's entries the caller's, and a run that read them
// marks every entry.
func TestDerive(t *testing.T) {
	rec := func(phase, secret string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "drop.example POST"}
		r.AddText("body", `{"d":"`+secret+`"}`)
		return r
	}
	man := &m.Manifest{Calls: []m.Call{{Phase: "call:push", Args: json.RawMessage(`{"path":"/w/src","remote":"https://git.drop.example/r"}`)}}}
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

// TestDeriveSendDuringACallIsNotTheCallers: what a call that named
// workspace files sends to a host its arguments did not name is no
// caller's (a thief waiting for a read_file, or a startup post that lands
// in the first call's window); its result still is.
func TestDeriveSendDuringACallIsNotTheCallers(t *testing.T) {
	rec := func(ch, dest, secret string) Record {
		r := Record{Phase: "call:read_file", Channel: ch, Dest: dest}
		r.AddText("body", `{"k":"`+secret+`"}`)
		return r
	}
	man := &m.Manifest{Calls: []m.Call{{Phase: "call:read_file", Args: json.RawMessage(`{"path":"/w/README.md"}`)}}}
	run := func(secret string) []Record {
		return []Record{rec(ChannelHTTP, "plain.example POST", secret), rec(ChannelTCP, "198.51.100.7:9000", secret), rec(ChannelResult, "tools/call", secret)}
	}
	got := Derive(man, "/w", run("aaaa"), run("aaaa"), run("bbbb"))
	caller := map[string]bool{}
	for _, d := range got {
		caller[d.Channel] = d.Caller
	}
	if len(got) != 3 || caller[ChannelHTTP] || caller[ChannelTCP] || !caller[ChannelResult] {
		t.Errorf("the caller's: %v (%+v)", caller, got)
	}
	// A host the arguments name, by its registrable domain, is supplied; a
	// single label, a word of a path, a file name or a substring is not.
	args := `{"path":"/home/dev/workspace/notes.md","url":"https://api.github.com/x"}`
	for dest, want := range map[string]bool{"github.com POST": true, "uploads.github.com:443": true, "home POST": false,
		"workspace POST": false, "notes.md POST": false, "thub.com POST": false, "drop.example POST": false} {
		if got := suppliedDest(ChannelHTTP, dest, args); got != want {
			t.Errorf("%q supplied by %s: %v, want %v", dest, args, got, want)
		}
	}
	if suppliedDest(ChannelService, "postgres 10.0.0.9:5432", `{"q":"postgres"}`) || !suppliedDest(ChannelService, "postgres 10.0.0.9:5432", `{"host":"10.0.0.9"}`) {
		t.Error("a service's destination is its address, not its name")
	}
	if suppliedDest(ChannelTCP, "10.0.0.9:5432", `{"host":"192.168.0.9"}`) {
		t.Error("an address is supplied only as itself, not by another ending in the same labels")
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

// TestDeriveAlignsCalls: a phase the runs filled with different calls (a
// retry only one run made shifted the tool's numbering) is not compared;
// one they filled alike is, even when a referenced value differed, and a
// theft at startup still shows.
func TestDeriveAlignsCalls(t *testing.T) {
	rec := func(phase, v string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "api.example GET"}
		r.AddURL("https://api.example/monitors/" + v + "?limit=1")
		return r
	}
	call := func(phase, set, args string) m.Call {
		return m.Call{Phase: phase, Kind: "tool", Name: "monitor", Set: set, Args: json.RawMessage(args)}
	}
	ref := `{"id":{"$ref_call":"call:create","field":"id"}}`
	man := &m.Manifest{Calls: []m.Call{call("call:monitor#2", "retry", `{"id":"x"}`), call("call:monitor#3", "optional", ref)}}
	other := &m.Manifest{Calls: []m.Call{call("call:monitor#2", "optional", ref), call("call:monitor#3", "optional", ref)}}
	p := []Record{rec("call:monitor#2", "retry01"), rec("call:monitor#3", "m-1")}
	v := []Record{rec("call:monitor#2", "m-2"), rec("call:monitor#3", "m-2")}
	got := Derive(man, "/w", p, p, v, other, other)
	if len(got) != 1 || got[0].Phase != "call:monitor#3" {
		t.Errorf("derived %+v; want only the phase both runs filled alike", got)
	}
	if got := Derive(man, "/w", p, p, v); len(got) != 1 {
		t.Errorf("without the other manifests: %+v", got)
	}
	// A restart only one run made takes nothing out of the comparison: a
	// server could die on purpose to hide what follows.
	restarted := &m.Manifest{Calls: slices.Clone(other.Calls)}
	restarted.Calls[1].Restarted = true
	if got := Derive(man, "/w", p, p, v, restarted, other); len(got) != 1 || got[0].Phase != "call:monitor#3" {
		t.Errorf("after a restart one run made: %+v", got)
	}
}

// TestDeriveWorkingContext: after a call set the server's working
// directory to the workspace, later calls' output that follows the
// workspace files (commit ids) is the caller's; before it, or after a
// call that only named a workspace file, or one that failed, it is not,
// and what it sends never is.
func TestDeriveWorkingContext(t *testing.T) {
	rec := func(phase, v string) Record {
		r := Record{Phase: phase, Channel: ChannelResult, Dest: "tools/call"}
		r.AddText("text", `{"commit":"`+v+`"}`)
		return r
	}
	outcome := m.CallOK
	calls := func(setup string) *m.Manifest {
		return &m.Manifest{Calls: []m.Call{{Phase: "call:git_log", Kind: "tool", Name: "git_log", Args: json.RawMessage(`{}`)},
			{Phase: "call:" + setup, Kind: "tool", Name: setup, Args: json.RawMessage(`{"path":"/w"}`), Outcome: outcome},
			{Phase: "call:git_status", Kind: "tool", Name: "git_status", Args: json.RawMessage(`{}`)}}}
	}
	p := []Record{rec("call:git_log", "a1b2c3"), rec("call:git_status", "a1b2c3")}
	v := []Record{rec("call:git_log", "d4e5f6"), rec("call:git_status", "d4e5f6")}
	send := func(v string) Record {
		r := Record{Phase: "call:git_status", Channel: ChannelHTTP, Dest: "drop.example POST"}
		r.AddText("body", `{"t":"`+v+`"}`)
		return r
	}
	p, v = append(p, send("Z2hwX0FB")), append(v, send("Z2hwX0JC"))
	for setup, wantCaller := range map[string]bool{"git_set_working_dir": true, "git_blame": false} {
		for _, d := range Derive(calls(setup), "/w", p, p, v) {
			if want := wantCaller && d.Phase == "call:git_status" && d.Channel == ChannelResult; d.Caller != want {
				t.Errorf("after %s, %s %s: caller %v, want %v", setup, d.Phase, d.Channel, d.Caller, want)
			}
		}
	}
	// A setup call that failed set nothing.
	outcome = m.CallError
	for _, d := range Derive(calls("git_set_working_dir"), "/w", p, p, v) {
		if d.Caller {
			t.Errorf("after a failed setup, %s %s is the caller's", d.Phase, d.Channel)
		}
	}
}

// TestFieldLabel: a field is labelled with the longer run's size (a
// short value in one run may spell a secret in the other), a lookup type
// that is A or AAAA in both runs as that, never with a value.
func TestFieldLabel(t *testing.T) {
	for _, tc := range []struct {
		f    FieldDiff
		want string
	}{
		{FieldDiff{Name: "text#3", Primary: "7", Variant: "Z2hwX0FBQUE="}, "text#3 (12 characters)"},
		{FieldDiff{Name: "qtype", Primary: "A", Variant: "AAAA"}, "qtype (A or AAAA)"},
		{FieldDiff{Name: "qtype", Primary: "HTTPS", Variant: "A"}, "qtype (A, AAAA or HTTPS)"},
		{FieldDiff{Name: "qtype", Primary: "TXT", Variant: "HTTPS"}, "qtype (5 characters)"},
		{FieldDiff{Name: "qtype", Primary: "A", Variant: "NULL"}, "qtype (4 characters)"},
		{FieldDiff{Name: "body", Primary: "abc", Variant: absent}, "body (3 characters)"},
		{FieldDiff{Name: "body.checkpoints[2].timestamp", Primary: "12", Variant: "451"}, "body.checkpoints[2].timestamp (3 digits)"},
		{FieldDiff{Name: "n", Primary: "12", Variant: "4a"}, "n (2 characters)"},
		{FieldDiff{Name: "header.content-length", Primary: "812", Variant: "1030"}, "header.content-length (4 digits, 218 apart)"},
		{FieldDiff{Name: "body.x", Primary: absent, Variant: "abc"}, "body.x (3 characters)"},
		{FieldDiff{Name: "body.events[0].params.saw_onboarding_page", Primary: "false", Variant: absent}, "body.events[0].params.saw_onboarding_page" + flagLabel},
		{FieldDiff{Name: "body.ready", Primary: absent, Variant: "null"}, "body.ready" + flagLabel},
		{FieldDiff{Name: "body.ready", Primary: "true", Variant: "false"}, "body.ready (5 characters)"},
	} {
		got := fieldLabel(tc.f)
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
		if key, ok := LabelFlag(got); ok {
			if !strings.HasSuffix(tc.f.Name, "."+key) {
				t.Errorf("%q read back as a flag keyed %q", got, key)
			}
			continue
		}
		if n, _, _, ok := LabelSize(got); ok != (tc.f.Name != "qtype" || strings.HasSuffix(got, "characters)")) || ok && n == 0 {
			t.Errorf("%q read back as size %d (%v)", got, n, ok)
		}
	}
}

// TestDeriveKilledRun: when a limit ended a run, what only some runs made
// is left out (where each stopped is the deadline's doing); what differs
// in content is kept.
func TestDeriveKilledRun(t *testing.T) {
	rec := func(phase, v string) Record {
		r := Record{Phase: phase, Channel: ChannelMessage, Dest: "stderr"}
		r.AddText("text", v)
		return r
	}
	tick := Record{Phase: "idle", Channel: ChannelDNS, Dest: "timer.example"}
	tick.AddField("qtype", "A")
	p := []Record{tick, rec("startup", "key ghp_AAAA")}
	v := []Record{rec("startup", "key ghp_BBBB")}
	man := &m.Manifest{}
	if got := Derive(man, "/w", p, p, v, &m.Manifest{}, &m.Manifest{}); len(got) != 2 {
		t.Errorf("not killed: %+v", got)
	}
	killed := &m.Manifest{Outcome: m.Outcome{Status: m.StatusKilled}}
	if got := Derive(man, "/w", p, p, v, killed, &m.Manifest{}); len(got) != 1 || got[0].Presence != "" {
		t.Errorf("killed: %+v", got)
	}
}
