package differential

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// sinkEvents are events in the shapes the sink writes them (internal/sink:
// a connection's tcp event, its http requests and data events by id, a
// datagram without its original address).
func sinkEvents(secret string) []sinklog.Event {
	return []sinklog.Event{
		{Time: 1, Kind: sinklog.KindDNS, Name: "hub.example.", QType: "A", Answer: []string{"198.18.0.7"}},
		{Time: 2, Kind: sinklog.KindTCP, ID: 4, Dst: "198.18.0.7:80", DstIP: "198.18.0.7", Port: 80, Proto: "http", First: []byte("POST /v1 HTTP/1.1\r\n")},
		{Time: 2, Kind: sinklog.KindHTTP, ID: 4, Name: "hub.example", Requests: []sinklog.HTTPRequest{{Method: "POST", Target: "/v1?sid=1",
			Host: "hub.example", Headers: [][2]string{{"X-Install", "h-" + secret}}, Body: []byte(`{"d":"` + secret + `"}`), BodySHA256: "digest-" + secret}}},
		{Time: 3, Kind: sinklog.KindTCP, ID: 5, Dst: "198.18.0.7:9000", Proto: "other", First: []byte("HELLO")},
		{Time: 3, Kind: sinklog.KindData, ID: 5, Offset: 5, Data: []byte(" " + secret)},
		{Time: 3, Kind: sinklog.KindData, ID: 5, Offset: sinklogMaxStream, Digest: "tail-" + secret, Length: 9},
		{Time: 4, Kind: sinklog.KindUDP, Src: "10.0.0.2:4000", Data: []byte(secret)},
	}
}

const sinklogMaxStream = 65536

// TestFromSinkShapes: every channel the sink records becomes records with
// their destinations — a request by its host and method, a stream's data
// by its connection's — and a secret in any of their parts is derived.
func TestFromSinkShapes(t *testing.T) {
	at := func(time.Time) string { return "startup" }
	p, v := FromSink(sinkEvents("AAAA1111"), at), FromSink(sinkEvents("BBBB2222"), at)
	dests := map[string]bool{}
	for _, r := range p {
		dests[r.Channel+" "+r.Dest] = true
	}
	for _, want := range []string{"dns hub.example", "http hub.example POST", "tcp hub.example:9000", "udp datagrams"} {
		if !dests[want] {
			t.Errorf("no record %q in %v", want, dests)
		}
	}
	got := map[string]bool{}
	for _, d := range Compare(p, p, v) {
		for _, f := range d.Fields {
			got[d.Channel+" "+f.Name] = true
		}
	}
	for _, want := range []string{"http header.x-install", "http body.d", "http body.sha256", "tcp data#0", "tcp data.sha256", "udp data#0"} {
		if !got[want] {
			t.Errorf("%q not derived; derived %v", want, got)
		}
	}
}

// TestLongFieldsCompareByDigest: a value past the field bound still
// differs when only its end does.
func TestLongFieldsCompareByDigest(t *testing.T) {
	pad := strings.Repeat("x", MaxFieldBytes+100)
	var a, b Record
	a.AddField("body", pad+"secret-a")
	b.AddField("body", pad+"secret-b")
	if a.Fields[0].Value == b.Fields[0].Value || len(a.Fields[0].Value) > MaxFieldBytes {
		t.Errorf("bounded values %d and %d bytes, equal %v", len(a.Fields[0].Value), len(b.Fields[0].Value), a.Fields[0].Value == b.Fields[0].Value)
	}
}

// TestGitStoreIsNoEmission: a commit of the workspace stores its files in
// objects named by their content and rewrites the index; written by git's
// own processes (gitStore) they are not compared, so the runs' different
// workspace files make no finding there. The same files written by
// anything else, and a file outside the store, still are.
func TestGitStoreIsNoEmission(t *testing.T) {
	norm := func(p string) string { return strings.Replace(p, "/home/dev/workspace", "<workspace>", 1) }
	run := func(secret string, store classify.ReadBack) []Record {
		obj := "/home/dev/workspace/.git/objects/" + secret[:2] + "/" + secret
		return Emissions(nil, nil, []classify.WrittenFile{
			{Path: obj, Data: []byte("blob " + secret)},
			{Path: "/home/dev/workspace/.git/index", Data: []byte("DIRC " + secret)},
			{Path: "/home/dev/workspace/notes.txt", Data: []byte("n " + secret)},
		}, nil, norm, store)
	}
	store := func(secret string) classify.ReadBack {
		return classify.ReadBack{Kept: map[string]bool{"<workspace>/.git/objects/" + secret[:2] + "/" + secret: true, "<workspace>/.git/index": true},
			Phase: map[string]string{"<workspace>/notes.txt": "call:write"}}
	}
	dests := func(ds []Derived) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Dest)
		}
		return out
	}
	ds := Compare(run("aa11", store("aa11")), run("aa11", store("aa11")), run("bb22", store("bb22")))
	if got := dests(ds); strings.Join(got, " ") != "<workspace>/notes.txt" {
		t.Errorf("git's own store: derived %v, want only the work tree file", got)
	} else if ds[0].Phase != "call:write" {
		t.Errorf("the file is in phase %q, want the phase whose trace wrote it", ds[0].Phase)
	}
	got := dests(Compare(run("aa11", classify.ReadBack{}), run("aa11", classify.ReadBack{}), run("bb22", classify.ReadBack{})))
	if len(got) != 4 {
		t.Errorf("the same files written by the server: derived %v, want the objects (each side), the index and the file", got)
	}
}
