package differential

import (
	"encoding/hex"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

func xor(s, key string) string {
	b := []byte(s)
	for i := range b {
		b[i] ^= key[i%len(key)]
	}
	return hex.EncodeToString(b)
}

// telemetry is a request the way a benign client sends one: a fresh
// random id and a timestamp every run, and its payload.
func telemetry(id, ts, payload string) Record {
	r := Record{Phase: "startup", Channel: ChannelHTTP, Dest: "collect.example POST"}
	r.AddURL("https://t.collect.example/v1/e?sid=" + id)
	r.AddText("body", fmt.Sprintf(`{"ts":%q,"event":"start","data":%q}`, ts, payload))
	return r
}

// TestCompare: a secret XORed with a fixed key is the same with the same
// secrets and different with others — derived, whatever the encoding;
// random ids and timestamps vary by themselves and are not.
func TestCompare(t *testing.T) {
	const key = "k3y"
	p := []Record{telemetry("a1b2c3d4e5f6", "2026-12-01T10:00:01Z", xor("ghp_secretA", key))}
	c := []Record{telemetry("99ffe0d1c2b3", "2026-12-01T10:00:02Z", xor("ghp_secretA", key))}
	v := []Record{telemetry("0badf00d1234", "2026-12-01T10:00:01Z", xor("ghp_secretB", key))}
	got := Compare(p, c, v)
	if len(got) != 1 || len(got[0].Fields) != 1 || got[0].Fields[0].Name != "body.data" {
		t.Fatalf("derived %+v", got)
	}
	// The control: the same telemetry carrying nothing secret.
	p[0], c[0], v[0] = telemetry("a1", "t1", "ok"), telemetry("b2", "t2", "ok"), telemetry("c3", "t1", "ok")
	if got := Compare(p, c, v); len(got) != 0 {
		t.Errorf("benign telemetry: %+v", got)
	}
}

// TestCompareDNSPieces: pieces of a secret spread over unrelated domains,
// each too short to recognise, are each derived.
func TestCompareDNSPieces(t *testing.T) {
	q := func(dom, label string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: dom}
		r.AddField("name", label+"."+dom)
		r.AddField("qtype", "A")
		return r
	}
	p := []Record{q("a.example", "6768"), q("b.example", "705f"), q("c.example", "7331")}
	c := []Record{q("a.example", "6768"), q("b.example", "705f"), q("c.example", "7331")}
	v := []Record{q("a.example", "ab12"), q("b.example", "cd34"), q("c.example", "ef56")}
	if got := Compare(p, c, v); len(got) != 3 {
		t.Errorf("pieces %+v", got)
	}
	// Data in the query type: the name is the same, the type is not.
	p, c, v = []Record{q("t.example", "x")}, []Record{q("t.example", "x")}, []Record{q("t.example", "x")}
	v[0].Fields[1].Value = "TXT"
	if got := Compare(p, c, v); len(got) != 1 || got[0].Fields[0].Name != "qtype" {
		t.Errorf("qtype %+v", got)
	}
}

// TestCompareCallerAndPresence: a result the caller asked for follows the
// decoys by design; an emission only the variant made is presence.
func TestCompareCallerAndPresence(t *testing.T) {
	res := func(text string, caller bool) Record {
		r := Record{Phase: "call:read", Channel: ChannelResult, Dest: "tools/call", Caller: caller}
		r.AddText("result", text)
		return r
	}
	if got := Compare([]Record{res("readme A", true)}, []Record{res("readme A", true)}, []Record{res("readme B", true)}); len(got) != 0 {
		t.Errorf("caller's %+v", got)
	}
	if got := Compare([]Record{res("![x](https://i.example/p.png?d=AAA)", false)}, []Record{res("![x](https://i.example/p.png?d=AAA)", false)},
		[]Record{res("![x](https://i.example/p.png?d=BBB)", false)}); len(got) != 1 {
		t.Errorf("image URL in a result %+v", got)
	}
	extra := Record{Phase: "idle", Channel: ChannelHTTP, Dest: "drop.example POST"}
	if got := Compare(nil, nil, []Record{extra}); len(got) != 1 || got[0].Presence == "" {
		t.Errorf("presence %+v", got)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("a=1&b=2", `{"x":[1,"y"]}`, "plain text 12 ab")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		mk := func(s string) []Record {
			r := Record{Phase: "p", Channel: ChannelHTTP, Dest: "d"}
			r.AddText("body", s)
			r.AddURL(s)
			return []Record{r}
		}
		for _, d := range Compare(mk(a), mk(b), mk(c)) {
			if len(d.Fields) > maxFieldsDerived {
				t.Fatal("unbounded")
			}
		}
	})
}

// TestCompareOrder: a resolver's questions in another order are not a
// difference.
func TestCompareOrder(t *testing.T) {
	q := func(typ string) Record {
		r := Record{Phase: "call:send", Channel: ChannelDNS, Dest: "fixture.example"}
		r.AddField("name", "api.fixture.example")
		r.AddField("qtype", typ)
		return r
	}
	p := []Record{q("A"), q("AAAA")}
	c := []Record{q("AAAA"), q("A")}
	v := []Record{q("AAAA"), q("A")}
	if got := Compare(p, c, v); len(got) != 0 {
		t.Errorf("order: %+v", got)
	}
}

// TestCompareSwapped: a secret spelled out by the choice of hosts (each
// bit a domain) makes the runs with the same secrets go to one set and
// the run with others to another: swapped, not a missed timer. One side
// alone (a timer the variant missed) stays a plain presence.
func TestCompareSwapped(t *testing.T) {
	q := func(dom string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: dom}
		r.AddField("name", "x."+dom)
		r.AddField("qtype", "A")
		return r
	}
	p := []Record{q("one.example"), q("zero.test")}
	c := []Record{q("one.example"), q("zero.test")}
	v := []Record{q("zero.test"), q("two.example")}
	got := Compare(p, c, v)
	if len(got) != 2 {
		t.Fatalf("derived %+v", got)
	}
	for _, d := range got {
		if d.Presence != PresenceSwapped {
			t.Errorf("%s: presence %q", d.Dest, d.Presence)
		}
	}
	got = Compare(p, c, []Record{q("zero.test")})
	if len(got) != 1 || got[0].Presence != PresencePrimary {
		t.Errorf("one side: %+v", got)
	}
	// Results go to the client whatever the secrets: one call answering in
	// some runs and another in others is no destination chosen.
	res := func(phase string) Record {
		r := Record{Phase: phase, Channel: ChannelResult, Dest: "tools/call"}
		r.AddText("text", "merged")
		return r
	}
	for _, d := range Compare([]Record{res("call:merge#2")}, []Record{res("call:merge#2")}, []Record{res("call:merge#3")}) {
		if d.Presence == PresenceSwapped {
			t.Errorf("results swapped: %+v", d)
		}
	}
}

// TestComparePhases: an emission a timer makes lands in startup in one run
// and in the first call's window in another; it pairs all the same. A
// call's result pairs only with the same call's.
func TestComparePhases(t *testing.T) {
	post := func(phase, d string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "hub.example POST"}
		r.AddText("body", `{"d":"`+d+`"}`)
		return r
	}
	got := Compare([]Record{post("call:echo", "x1")}, []Record{post("startup", "x1")}, []Record{post("startup", "y2")})
	if len(got) != 1 || got[0].Phase != "call:echo" || got[0].Presence != "" || got[0].Fields[0].Name != "body.d" {
		t.Errorf("across phases: %+v", got)
	}
	if got := Compare([]Record{post("startup", "x1")}, []Record{post("call:echo", "x1")}, []Record{post("idle", "x1")}); len(got) != 0 {
		t.Errorf("the same emission in three phases: %+v", got)
	}
	res := func(phase, text string) Record {
		r := Record{Phase: phase, Channel: ChannelResult, Dest: "tools/call"}
		r.AddText("text", text)
		return r
	}
	p := []Record{res("call:a", "fixed"), res("call:b", "k1")}
	v := []Record{res("call:a", "k2"), res("call:b", "fixed")}
	got = Compare(p, p, v)
	if len(got) != 2 || got[0].Phase != "call:a" || got[1].Phase != "call:b" {
		t.Errorf("results of two calls: %+v", got)
	}
}

// TestClockStepIsNoDifference: fields a clock step apart (log times,
// epoch seconds, a length counting one) are what starting a second later
// does, not the secrets; a secret's decimal spelling (the control) still
// differs.
func TestClockStepIsNoDifference(t *testing.T) {
	rec := func(v ...string) Record {
		r := Record{Channel: "message stderr", Dest: "stderr"}
		for i, x := range v {
			r.AddField(fmt.Sprintf("text#%d", i), x)
		}
		return r
	}
	for _, c := range []struct {
		name    string
		p, v    []string
		derived bool
	}{
		{"seconds", []string{"12", "04", "37"}, []string{"12", "04", "39"}, false},
		{"minute wrap", []string{"12", "04", "59"}, []string{"12", "05", "00"}, false},
		{"epoch seconds", []string{"1796000000"}, []string{"1796000002"}, false},
		{"content length", []string{"512"}, []string{"513"}, false},
		{"a secret in decimal", []string{"4815162342"}, []string{"2718281828"}, true},
		{"split char codes", []string{"83", "75", "45"}, []string{"112", "114", "111"}, true},
		{"letters", []string{"ab"}, []string{"ac"}, true},
	} {
		p, v := rec(c.p...), rec(c.v...)
		got := Compare([]Record{p}, []Record{p}, []Record{v})
		if (len(got) > 0) != c.derived {
			t.Errorf("%s: derived %+v, want %v", c.name, got, c.derived)
		}
	}
}

// TestTimestampsAreTheClock: a timestamp in any of the forms servers send
// is one field, and two of them a few seconds apart are the clock; a
// secret that looks like a date in part, or dates far apart, still differ.
func TestTimestampsAreTheClock(t *testing.T) {
	for _, c := range []struct {
		a, b string
		step bool
	}{
		{"Wed, 02 Dec 2026 09:23:08 GMT", "Wed, 02 Dec 2026 09:23:09 GMT", true},
		{"2026-12-02T09:23:09.568Z", "2026-12-02T09:23:12.185Z", true},
		{"2026-12-02T09:23:09+01:00", "2026-12-02T09:23:10+01:00", true},
		{"2026-12-02 09:23:09", "2026-12-02 09:23:11", true},
		{"20261202T092309Z", "20261202T092311Z", true},
		{"2026-12-02T09:23:09.568Z", "2026-12-02T09:23:19.568Z", false},  // ten seconds: not a start a moment later
		{"Wed, 02 Dec 2026 09:23:08 GMT", "2026-12-02T09:23:08Z", false}, // another form: another field's
		{"2026-12-02T09:23:09Zsk-ant-1", "2026-12-02T09:23:09Zsk-ant-2", false},
	} {
		if got := clockStep(c.a, c.b); got != c.step {
			t.Errorf("clockStep(%q, %q) = %v, want %v", c.a, c.b, got, c.step)
		}
	}
	toks := tokensKeepingTimes("at 2026-12-02T09:23:09.585Z, took 12 ms; Date: Wed, 02 Dec 2026 09:23:08 GMT end")
	want := []string{"at", "2026-12-02T09:23:09.585Z", "took", "12", "ms", "Date", "Wed, 02 Dec 2026 09:23:08 GMT", "end"}
	if fmt.Sprint(toks) != fmt.Sprint(want) {
		t.Errorf("tokens %q, want %q", toks, want)
	}
	// A result that lists a request's time: its milliseconds agreeing by
	// chance in the runs with the same secrets are no field of their own.
	res := func(ts string) Record {
		r := Record{Phase: "call:get_positions", Channel: ChannelResult, Dest: "tools/call"}
		r.AddText("text", `{"data":{"requestTime":"`+ts+`","n":1}}`)
		return r
	}
	if got := Compare([]Record{res("2026-12-02T09:23:09.585Z")}, []Record{res("2026-12-02T09:23:12.585Z")}, []Record{res("2026-12-02T09:23:11.306Z")}); len(got) != 0 {
		t.Errorf("a request time's milliseconds: %+v", got)
	}
}

// TestSignedRequestsPairWithinTheirCall: a server signs every request over
// its date with the credential it is given. The primary run's request of
// one call is the exact twin of the calibration run's request of the next
// call (the same second); it pairs with its own call's request all the
// same, and nothing differs. The control signs with a planted secret.
func TestSignedRequestsPairWithinTheirCall(t *testing.T) {
	signed := func(phase, date, key string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "api.example POST"}
		r.AddURL("https://api.example/v2/auth")
		r.AddField("header.x-date", "Wed, 02 Dec 2026 09:23:"+date+" GMT")
		r.AddField("header.authorization", "Sig:"+xor(key+date, "k"))
		return r
	}
	run := func(key string, d1, d2 string) []Record {
		return []Record{signed("call:a", d1, key), signed("call:b", d2, key)}
	}
	if got := Compare(run("given", "08", "09"), run("given", "07", "08"), run("given", "09", "10")); len(got) != 0 {
		t.Errorf("signed with the given credential: %+v", got)
	}
	got := Compare(run("secretA", "08", "09"), run("secretA", "08", "09"), run("secretB", "08", "09"))
	if len(got) != 2 || got[0].Fields[0].Name != "header.authorization" {
		t.Errorf("signed with a planted secret: %+v", got)
	}
}

// TestVariantPairsByContent: two requests a call left running land in the
// next call's window in the secrets run and not in the others; paired by
// what did not vary, not by the window, nothing differs. A request that
// carries the secret still does.
func TestVariantPairsByContent(t *testing.T) {
	get := func(phase, agent string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "api.example GET"}
		r.AddURL("https://api.example/indexes")
		r.AddField("header.user-agent", agent)
		return r
	}
	same := []Record{get("call:create#4", "control-plane/1.0"), get("call:create#5", "inference/1.0")}
	swapped := []Record{get("call:create#4", "inference/1.0"), get("call:create#5", "control-plane/1.0")}
	if got := Compare(same, same, swapped); len(got) != 0 {
		t.Errorf("requests in each other's windows: %+v", got)
	}
	secret := func(s string) []Record {
		return []Record{get("call:create#4", "control-plane/1.0 "+xor(s, "k")), get("call:create#5", "inference/1.0")}
	}
	if got := Compare(secret("secretA"), secret("secretA"), secret("secretB")); len(got) != 1 || got[0].Fields[0].Name != "header.user-agent" {
		t.Errorf("a user agent carrying the secret: %+v", got)
	}
}

// history is a result listing recent calls with their durations, the way
// okx-trade-mcp's trade_get_history lists its log: text, so its tokens
// are fields by position; with asJSON, a JSON array.
func history(asJSON bool, ms ...int) Record {
	r := Record{Phase: "call:history", Channel: ChannelResult, Dest: "tools/call"}
	var b strings.Builder
	b.WriteString("[")
	for i, d := range ms {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"tool":"echo","level":"info","durationMs":%d}`, d)
	}
	b.WriteString("]")
	if asJSON {
		r.AddText("text", b.String())
	} else {
		r.AddText("text", "history:\n"+b.String())
	}
	return r
}

// TestKindNoise: durations of the same kind (the word before them, or the
// JSON path without its index) that vary by themselves in most entries
// and agree by chance in a few are noise in all of them. Numbers that
// follow the secrets in more entries than chance predicts, numbers past
// three digits, and more than maxKindNoise such differences in a run stay
// differences.
func TestKindNoise(t *testing.T) {
	// runs builds twenty entries: chance (p = c by chance, v not), then
	// secret (p = c = code, v another code), then varied (p ≠ c), then
	// stable (the same in all three).
	type entry struct{ p, c, v int }
	runs := func(es []entry) (p, c, v []int) {
		for _, e := range es {
			p, c, v = append(p, e.p), append(c, e.c), append(v, e.v)
		}
		return
	}
	mk := func(chance [][2]int, secret [][2]int, varied, stable int) []entry {
		var es []entry
		for _, x := range chance {
			es = append(es, entry{x[0], x[0], x[1]})
		}
		for _, x := range secret {
			es = append(es, entry{x[0], x[0], x[1]})
		}
		for i := range varied {
			es = append(es, entry{10 + i, 30 + i, 20 + i})
		}
		for range stable {
			es = append(es, entry{7, 7, 7})
		}
		return es
	}
	codes := func(a, b string) [][2]int {
		var out [][2]int
		for i := range a {
			out = append(out, [2]int{int(a[i]), int(b[i])})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		es      []entry
		asJSON  bool
		derived bool
	}{
		{"three durations agreeing by chance", mk([][2]int{{5, 17}, {8, 30}, {12, 2}}, nil, 14, 3), false, false},
		{"the same, a JSON array", mk([][2]int{{5, 17}, {8, 30}, {12, 2}}, nil, 14, 3), true, false},
		{"four", mk([][2]int{{5, 17}, {8, 30}, {12, 2}, {9, 1}}, nil, 14, 2), false, false},
		{"a secret's char codes among two random durations", mk(nil, codes("sk-ant-api03-XYZWVU", "sk-ant-api03-QRSTOP"), 2, 0), false, true},
		{"half random, half the secret", mk(nil, codes("ghp_ABCDEFGH", "ghp_QRSTUVWX"), 8, 0), false, true},
		// The limit (docs/sandbox.md): four numbers of a secret among
		// random ones of their kind are what chance agreements look like.
		{"four of a secret's char codes among random durations", mk(nil, codes("ghp_ABCD", "ghp_EFGH"), 8, 4), false, false},
		{"more than four chance agreements", mk([][2]int{{5, 17}, {8, 30}, {12, 2}, {9, 1}, {3, 33}, {6, 16}}, nil, 14, 0), false, true},
		{"one varied duration is no kind's noise", mk([][2]int{{5, 17}}, nil, 1, 18), false, true},
		{"four digits are no timer's noise", mk([][2]int{{5120, 1730}}, nil, 14, 5), false, true},
	} {
		p, cc, v := runs(c.es)
		got := Compare([]Record{history(c.asJSON, p...)}, []Record{history(c.asJSON, cc...)}, []Record{history(c.asJSON, v...)})
		if (len(got) > 0) != c.derived {
			t.Errorf("%s: derived %+v, want %v", c.name, got, c.derived)
		}
	}
	// The budget counts across the run's records: two listings with three
	// chance agreements each are six, past it; the same listing returned
	// by two calls counts once.
	a := mk([][2]int{{5, 17}, {8, 30}, {12, 2}}, nil, 14, 3)
	b := mk([][2]int{{4, 19}, {6, 31}, {13, 3}}, nil, 14, 3)
	rs := func(es ...[]entry) (p, c, v []Record) {
		for i, e := range es {
			pp, cc, vv := runs(e)
			for j, x := range [][]int{pp, cc, vv} {
				r := history(false, x...)
				r.Phase = fmt.Sprintf("call:history#%d", i)
				switch j {
				case 0:
					p = append(p, r)
				case 1:
					c = append(c, r)
				default:
					v = append(v, r)
				}
			}
		}
		return
	}
	if got := Compare(rs(a, b)); len(got) != 2 {
		t.Errorf("six chance agreements over two listings: %d derived, want 2", len(got))
	}
	if got := Compare(rs(a, a)); len(got) != 0 {
		t.Errorf("one listing returned twice: %+v", got)
	}
}

// TestKindNoiseUnits: a memory report's figures ("45.67 MB" under each of
// five keys, as text and as structured content) are of a kind by their
// unit; two of them agreeing by chance in the runs with the same secrets
// are its noise. Five figures that follow the secrets and never vary by
// themselves stay a difference.
func TestKindNoiseUnits(t *testing.T) {
	report := func(mb ...string) Record {
		r := Record{Phase: "call:get_config", Channel: ChannelResult, Dest: "tools/call"}
		keys := []string{"rss", "heapTotal", "heapUsed", "external", "arrayBuffers"}
		var b strings.Builder
		b.WriteString(`{"content":[{"type":"text","text":"Config:\n`)
		for i, k := range keys {
			fmt.Fprintf(&b, `  %s: %s MB\n`, k, mb[i])
		}
		b.WriteString(`"}],"structuredContent":{"memory":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `%q:"%s MB"`, k, mb[i])
		}
		b.WriteString(`}}}`)
		r.AddText("text", b.String())
		return r
	}
	p := report("81.12", "40.55", "18.07", "3.21", "0.52")
	c := report("80.12", "41.90", "19.07", "3.48", "0.31")
	v := report("82.76", "40.13", "18.66", "3.06", "0.97")
	if got := Compare([]Record{p}, []Record{c}, []Record{v}); len(got) != 0 {
		t.Errorf("memory figures: %+v", got)
	}
	// Three figures agreed by chance, each in the text and again in the
	// structured content that repeats it: three agreements, not six.
	if got := Compare([]Record{p}, []Record{report("80.47", "41.90", "18.07", "3.21", "0.31")}, []Record{report("82.76", "40.13", "25.66", "9.06", "0.97")}); len(got) != 0 {
		t.Errorf("memory figures mirrored in structured content: %+v", got)
	}
	// One figure varied in each of two reports, and one agreed by chance:
	// the run's reports together show the kind's noise.
	p2, c2, v2 := report("81.12", "40.55", "18.27", "3.21", "0.52"), report("80.47", "40.55", "18.27", "3.21", "0.52"), report("82.91", "40.55", "18.66", "3.21", "0.52")
	p3, c3, v3 := report("79.12", "40.55", "18.07", "3.21", "0.52"), report("78.30", "40.55", "18.07", "3.21", "0.52"), report("79.12", "40.55", "18.07", "3.21", "0.52")
	p3.Phase, c3.Phase, v3.Phase = "call:get_config#2", "call:get_config#2", "call:get_config#2"
	if got := Compare([]Record{p2, p3}, []Record{c2, c3}, []Record{v2, v3}); len(got) != 0 {
		t.Errorf("memory figures over two reports: %+v", got)
	}
	// One report alone, one figure varied: too little to call it noise.
	if got := Compare([]Record{p2}, []Record{c2}, []Record{v2}); len(got) != 1 {
		t.Errorf("one report, one figure varied: %+v", got)
	}
	p = report("11.22", "33.44", "55.66", "77.88", "99.10")
	v = report("21.32", "43.54", "65.76", "87.98", "19.20")
	if got := Compare([]Record{p}, []Record{p}, []Record{v}); len(got) != 1 {
		t.Errorf("figures that follow the secrets: %+v", got)
	}
}

// TestShiftedInTime: a server looks up its telemetry host and its bare
// domain as timers decide; the runs with the same secrets asked for the
// one more often and the secrets run for the other (desktop-commander).
// Each value was asked for by the other side too: no difference. Names
// chosen by the secret's bits shift more lookups than that, and stay.
func TestShiftedInTime(t *testing.T) {
	q := func(phase, name, typ string) Record {
		r := Record{Phase: phase, Channel: ChannelDNS, Dest: "desk.example"}
		r.AddField("name", name)
		r.AddField("qtype", typ)
		return r
	}
	const bare, tele = "desk.example", "telemetry.desk.example"
	p := []Record{q("startup", bare, "A"), q("startup", bare, "AAAA"), q("call:s", tele, "A"), q("call:s", tele, "AAAA"), q("idle", tele, "A"), q("idle", tele, "AAAA")}
	v := []Record{q("startup", bare, "A"), q("startup", bare, "AAAA"), q("call:s", bare, "A"), q("call:s", bare, "AAAA"), q("idle", tele, "A"), q("idle", tele, "AAAA")}
	if got := Compare(p, p, v); len(got) != 0 {
		t.Errorf("lookups shifted in time: %+v", got)
	}
	// The control: a name a bit, eight lookups; the secrets differ in
	// four bits that all moved the same way.
	bits := func(s string) []Record {
		var rs []Record
		for i, b := range s {
			name := "a.desk.example"
			if b == '1' {
				name = "b.desk.example"
			}
			rs = append(rs, q(fmt.Sprintf("call:c#%d", i), name, "A"))
		}
		return rs
	}
	if got := Compare(bits("00000011"), bits("00000011"), bits("00111111")); len(got) != 4 {
		t.Errorf("names chosen by the secret's bits: %d derived, want 4", len(got))
	}
	// A name only the secrets run asked for is no shift.
	v[2], v[3] = q("call:s", "x1f3.desk.example", "A"), q("call:s", "x1f3.desk.example", "AAAA")
	if got := Compare(p, p, v); len(got) != 2 {
		t.Errorf("a new name: %+v", got)
	}
}

// TestShiftedNotFooledByPairing: names chosen by the secret's bits, each
// with its bit's index, asked for in any order (concurrent lookups): a
// record whose twin an earlier one took pairs with another's twin, each
// value then on both sides, but the variant's surplus names are its own.
// However the lookups are ordered, the bits stay secret-derived.
func TestShiftedNotFooledByPairing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := func(name string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: "bits.example"}
		r.AddField("name", name)
		r.AddField("qtype", "A")
		return r
	}
	run := func(bits uint16) []Record {
		var rs []Record
		for i := range 16 {
			rs = append(rs, q(fmt.Sprintf("b%d-%d.bits.example", i, bits>>i&1)))
		}
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		return rs
	}
	for range 300 {
		a, b := uint16(rng.Uint32()), uint16(rng.Uint32())
		if bitsDiffer := bits.OnesCount16(a ^ b); bitsDiffer < 1 {
			continue
		}
		if got := Compare(run(a), run(a), run(b)); len(got) == 0 {
			t.Fatalf("bits %016b and %016b: nothing derived", a, b)
		}
	}
}

// TestPairsPastTheBound: thousands of polling requests of one call push
// another call's request past the first maxPaired records in one run
// (firecrawl-mcp's crawl status and its monitor's request): it still
// pairs with its own call's request, not with a polling one.
func TestPairsPastTheBound(t *testing.T) {
	req := func(phase, path, status string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "crawl.example GET"}
		r.AddField("path", path)
		r.AddField("query.status", status)
		r.AddField("header.accept", "application/json")
		return r
	}
	run := func(polls int, status string) []Record {
		var rs []Record
		for range polls {
			rs = append(rs, req("call:crawl", "crawl/9732", ""))
		}
		return append(rs, req("call:monitor_checks", "monitor/1/checks", status))
	}
	if got := Compare(run(56, "running"), run(62, "running"), run(73, "running")); len(got) != 0 {
		t.Errorf("a request past the bound in one run: %+v", got)
	}
	// The control: its field follows the secrets, and it alone differs.
	got := Compare(run(56, "running"), run(62, "running"), run(73, "k3y9"))
	if len(got) != 1 || len(got[0].Fields) != 1 || got[0].Fields[0].Name != "query.status" {
		t.Errorf("a field that follows the secrets past the bound: %+v", got)
	}
}

// TestShiftNoise: an index's polling with two user agents (one per
// caller), whose counts the runs with the same secrets made far apart
// (@pinecone-database/mcp): which requests fell in a call's window is
// that noise, however many. Names chosen by a secret's bits leave their
// counts the same in those runs, and stay, as do they beside another
// name whose count varies by itself.
func TestShiftNoise(t *testing.T) {
	poll := func(phase, ua string) Record {
		r := Record{Phase: phase, Channel: ChannelHTTP, Dest: "index.example GET"}
		r.AddField("path", "indexes/fleet")
		r.AddField("header.user-agent", ua)
		return r
	}
	const x, y = "client v8; caller=anthropic", "client v8"
	run := func(xs, ys int, xPhase string) []Record {
		var rs []Record
		for range ys {
			rs = append(rs, poll("idle", y))
		}
		for range xs {
			rs = append(rs, poll(xPhase, x))
		}
		return rs
	}
	p := append(run(8, 0, "call:create#4"), run(0, 10, "")...)
	c := append(run(8, 0, "call:create#4"), run(0, 1, "")...)
	v := append(run(0, 70, ""), run(4, 0, "idle")...)
	if got := Compare(p, c, v); len(got) != 0 {
		t.Errorf("polling whose counts vary by themselves: %+v", got)
	}
	// The control: the same counts in the runs with the same secrets.
	if got := Compare(p, p, v); len(got) != 4 {
		t.Errorf("shifted with no noise of their own: %d derived, want 4 (four of the eight found their twins)", len(got))
	}
	// Bits spelled by names, beside a name whose count varies by itself.
	q := func(name string) Record {
		r := Record{Phase: "startup", Channel: ChannelDNS, Dest: "bits.example"}
		r.AddField("name", name)
		return r
	}
	bitsRun := func(bits string, junk int) []Record {
		var rs []Record
		for _, b := range bits {
			rs = append(rs, q(map[rune]string{'0': "a.bits.example", '1': "b.bits.example"}[b]))
		}
		for range junk {
			rs = append(rs, q("j.bits.example"))
		}
		return rs
	}
	if got := Compare(bitsRun("0000001111", 5), bitsRun("0000001111", 40), bitsRun("0011111111", 20)); len(got) != 4 {
		t.Errorf("names chosen by the secret's bits beside noisy junk: %d derived, want 4", len(got))
	}
}
