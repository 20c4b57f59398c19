package differential

import (
	"strings"
	"testing"
	"time"

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
