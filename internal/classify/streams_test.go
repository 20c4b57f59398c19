package classify

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// TestStreamsJoinPieces: canaries cut into pieces the finder cannot
// recognize alone are found by joining them: DNS labels per registrable
// domain in query order (retries and AAAA twins counted once), the data
// events of one TCP connection, the datagrams of one socket; a gzip body
// is decoded; the same values sent whole are the control.
func TestStreamsJoinPieces(t *testing.T) {
	cs := canary.Generate(nil)
	aws := cs.Env["AWS_SECRET_ACCESS_KEY"]
	hx := hex.EncodeToString([]byte(aws))
	var evs []sinklog.Event
	at := 100.0
	add := func(e sinklog.Event) {
		at += 0.01
		e.Time = at
		evs = append(evs, e)
	}
	for i := 0; i < len(hx); i += 14 {
		for _, qt := range []string{"A", "AAAA", "A"} {
			add(sinklog.Event{Kind: sinklog.KindDNS, Name: hx[i:min(i+14, len(hx))] + ".s.split.example", QType: qt})
		}
		add(sinklog.Event{Kind: sinklog.KindDNS, Name: "cdn.other.example", QType: "A"})
	}
	gh := cs.Env["GITHUB_TOKEN"]
	add(sinklog.Event{Kind: sinklog.KindTCP, ID: 1, Name: "raw.fixture.example", DstIP: "198.18.0.9", Port: 4444, Proto: "other", First: []byte("HELLO " + gh[:12])})
	add(sinklog.Event{Kind: sinklog.KindData, ID: 1, Offset: 18, Data: []byte(gh[12:])})
	npm := cs.Env["NPM_TOKEN"]
	add(sinklog.Event{Kind: sinklog.KindUDP, Src: "127.0.0.1:5000", Data: []byte("a=" + npm[:10])})
	add(sinklog.Event{Kind: sinklog.KindUDP, Src: "127.0.0.1:5000", Data: []byte(npm[10:])})
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(`{"k":"` + cs.Env["SLACK_BOT_TOKEN"] + `","pad":"` + strings.Repeat("ok ", 100) + `"}`))
	w.Close()
	add(sinklog.Event{Kind: sinklog.KindTCP, ID: 2, Name: "gz.fixture.example", DstIP: "198.18.0.10", Port: 443, Proto: "tls", TLS: "intercepted"})
	add(sinklog.Event{Kind: sinklog.KindHTTP, ID: 2, Requests: []sinklog.HTTPRequest{{Method: "POST", Target: "/u", Host: "gz.fixture.example",
		Headers: [][2]string{{"Content-Encoding", "gzip"}}, Body: z.Bytes(), BodyLen: int64(z.Len())}}})
	// The control: a whole value in one query.
	add(sinklog.Event{Kind: sinklog.KindDNS, Name: hex.EncodeToString([]byte(cs.Env["OPENAI_API_KEY"]))[:60] + ".plain.example", QType: "A"})

	p := Classify(Input{Layout: layout, Canaries: cs, Sink: evs}).Phases[0]
	var got []string
	for _, h := range p.Canaries {
		got = append(got, h.Canary+" "+h.Encoding+" "+h.Evidence)
	}
	want := []string{
		"env:AWS_SECRET_ACCESS_KEY hex-fragment dns *.split.example (labels of 2 names joined in query order)",
		"env:AWS_SECRET_ACCESS_KEY hex dns *.split.example (labels of 6 names joined in query order)",
		"env:GITHUB_TOKEN prefix tcp raw.fixture.example:4444",
		"env:GITHUB_TOKEN raw tcp raw.fixture.example:4444",
		"env:NPM_TOKEN raw udp datagram (destination not traced)",
		"env:OPENAI_API_KEY hex-fragment dns " + hex.EncodeToString([]byte(cs.Env["OPENAI_API_KEY"]))[:60] + ".plain.example",
		"env:OPENAI_API_KEY prefix-hex dns " + hex.EncodeToString([]byte(cs.Env["OPENAI_API_KEY"]))[:60] + ".plain.example",
		"env:SLACK_BOT_TOKEN gzip+raw https POST gz.fixture.example/u",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("canary hits (-want +got):\n%s", diff)
	}
}

// FuzzDNSJoin: any sequence of names keeps the joins within their bounds
// and a value cut across the names is still found.
func FuzzDNSJoin(f *testing.F) {
	f.Add("a.b.example\nc.b.example\n\n.example", uint8(7))
	f.Add("x.y.z.co.uk\nX.Y.Z.CO.UK\n1.2.3.4", uint8(1))
	cs := canary.Generate(nil)
	hx := hex.EncodeToString([]byte(cs.Env["GITHUB_TOKEN"]))
	f.Fuzz(func(t *testing.T, noise string, piece uint8) {
		var evs []sinklog.Event
		at := 1.0
		for _, n := range strings.Split(noise, "\n") {
			at += 0.001
			evs = append(evs, sinklog.Event{Time: at, Kind: sinklog.KindDNS, Name: n, QType: "A"})
		}
		size := int(piece%20) + 1
		var pieces []string
		for i := 0; i < len(hx); i += size {
			pieces = append(pieces, hx[i:min(i+size, len(hx))])
		}
		repeats := false // a piece equal to one just before it reads as a retry
		for i, p := range pieces {
			repeats = repeats || i > 0 && pieces[i-1] == p || i > 1 && pieces[i-2] == p
			at += 0.001
			evs = append(evs, sinklog.Event{Time: at, Kind: sinklog.KindDNS, Name: p + ".q.join.example", QType: "A"})
		}
		c := newClassifier(Input{Layout: layout, Canaries: cs, Sink: evs})
		c.namesFromSink()
		c.mergeSink()
		for reg, j := range c.joins {
			if j.bytes > maxJoinBytes+253 || j.names > maxJoinNames || len(j.recent) > joinRecent {
				t.Errorf("%s: %d bytes, %d names", reg, j.bytes, j.names)
			}
		}
		found := false
		for _, h := range c.phases[0].Canaries {
			found = found || h.Canary == "env:GITHUB_TOKEN" && h.Encoding == "hex"
		}
		if !found && !repeats && !strings.Contains(noise, "join.example") {
			t.Errorf("token in pieces of %d not found: %+v", size, c.phases[0].Canaries)
		}
	})
}
