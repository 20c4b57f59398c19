package sink

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// exampleLog is what a sinkhole run of the postmark-mcp pattern writes:
// ready, a lookup, a TLS connection, the request with a Bcc, a UDP probe
// and a connection that sent nothing.
const exampleLog = `{"t":1761300000.1,"kind":"ready"}
{"t":1761300001.2,"kind":"dns","name":"api.postmarkapp.com","qtype":"A","answer":["198.18.0.1"],"src":"127.0.0.1:51234"}
{"t":1761300001.3,"kind":"tcp","id":1,"src":"127.0.0.1:40112","dst":"198.18.0.1:443","dst_ip":"198.18.0.1","port":443,"name":"api.postmarkapp.com","proto":"tls","sni":"api.postmarkapp.com","alpn":["http/1.1"],"tls":"intercepted"}
{"t":1761300001.4,"kind":"http","id":1,"name":"api.postmarkapp.com","dst_ip":"198.18.0.1","port":443,"sni":"api.postmarkapp.com","requests":[{"method":"POST","target":"/email","host":"api.postmarkapp.com","proto":"HTTP/1.1","headers":[["Content-Type","application/json"],["X-Postmark-Server-Token","mcp-audit-canary-token"]],"body":"eyJGcm9tIjoiYUBiLmV4YW1wbGUiLCJUbyI6ImNAZC5leGFtcGxlIiwiQmNjIjoicGhhbkBnaWZ0c2hvcC5leGFtcGxlIn0=","body_len":71,"status":200}]}
{"t":1761300002.5,"kind":"udp","src":"127.0.0.1:53000","len":4,"data":"AAECAw=="}
{"t":1761300003.6,"kind":"tcp","id":2,"src":"127.0.0.1:40114","dst":"198.18.0.2:22","dst_ip":"198.18.0.2","port":22,"proto":"none"}
`

func TestReadExampleLog(t *testing.T) {
	evs, st := sinklog.Read([]byte(exampleLog), 0)
	if diff := cmp.Diff(sinklog.ReadStats{Events: 6}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if diff := cmp.Diff([]string{"ready", "dns", "tcp", "http", "udp", "tcp"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	req := evs[3].Requests[0]
	if !strings.Contains(string(req.Body), `"Bcc":"phan@giftshop.example"`) || req.Headers[1][0] != "X-Postmark-Server-Token" {
		t.Errorf("request %+v", req)
	}
	if string(evs[4].Data) != "\x00\x01\x02\x03" {
		t.Errorf("udp data %q", evs[4].Data)
	}
}

func TestRead(t *testing.T) {
	ready := `{"t":1,"kind":"ready"}`
	for _, tc := range []struct {
		name  string
		in    string
		max   int
		kinds []string
		stats sinklog.ReadStats
	}{
		{"empty", "", 0, nil, sinklog.ReadStats{}},
		{"blank lines and CRLF", "\n\n" + ready + "\r\n  \n" + ready, 0, []string{"ready", "ready"}, sinklog.ReadStats{Events: 2}},
		{"not JSON", "garbage\n" + ready, 0, []string{"ready"}, sinklog.ReadStats{Events: 1, Malformed: 1}},
		{"no kind", `{"t":1}` + "\n" + `{"kind":""}` + "\n" + ready, 0, []string{"ready"}, sinklog.ReadStats{Events: 1, Malformed: 2}},
		{"wrong type", `{"kind":"tcp","port":"443"}` + "\n" + `{"kind":7}`, 0, nil, sinklog.ReadStats{Malformed: 2}},
		{"JSON that is not an object", "[]\nnull\n\"x\"\n", 0, nil, sinklog.ReadStats{Malformed: 3}},
		{"cut mid-line", ready + "\n" + `{"t":2,"kind":"dn`, 0, []string{"ready"}, sinklog.ReadStats{Events: 1, Malformed: 1}},
		{"max events", strings.Repeat(ready+"\n", 5), 3, []string{"ready", "ready", "ready"}, sinklog.ReadStats{Events: 3, Truncated: true}},
		{"exactly max events", strings.Repeat(ready+"\n", 3), 3, []string{"ready", "ready", "ready"}, sinklog.ReadStats{Events: 3}},
		{"size-limit marker", ready + "\n" + `{"t":2,"kind":"error","error":"log size limit reached; later events dropped"}`, 0,
			[]string{"ready", "error"}, sinklog.ReadStats{Events: 2, Truncated: true}},
		{"other errors do not truncate", `{"kind":"error","error":"too many concurrent connections; one dropped"}`, 0,
			[]string{"error"}, sinklog.ReadStats{Events: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, st := sinklog.Read([]byte(tc.in), tc.max)
			var kinds []string
			for _, e := range evs {
				kinds = append(kinds, e.Kind)
			}
			if diff := cmp.Diff(tc.kinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stats, st); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadTooLongLine: a line over the reader's 4 MiB bound is counted as
// malformed instead of being buffered whole.
func TestReadTooLongLine(t *testing.T) {
	in := `{"kind":"ready"}` + "\n" + `{"kind":"udp","error":"` + strings.Repeat("x", 5<<20) + `"}` + "\n"
	evs, st := sinklog.Read([]byte(in), 0)
	if len(evs) != 1 || st.Malformed != 1 {
		t.Errorf("%d events, stats %+v", len(evs), st)
	}
}

// TestLargestEventFitsTheReader builds the largest HTTP event the sink can
// write with the sandbox's settings (1 MiB bodies, 100 headers of 256+4096
// bytes, an 8 KiB target), from characters JSON escapes to six bytes, and
// checks that the reader's line bound still holds it.
func TestLargestEventFitsTheReader(t *testing.T) {
	const maxBody = 1 << 20
	worst := func(n int) string { return strings.Repeat("<", n) }
	rec := sinklog.HTTPRequest{Method: worst(16), Target: worst(8192), Host: worst(253), Proto: worst(16),
		Body: bytes.Repeat([]byte{0xff}, maxBody), BodyLen: 1 << 40, Truncated: true, Status: 200}
	for range 100 {
		// Header names are tokens (net/http rejects '<' in them).
		rec.Headers = append(rec.Headers, [2]string{strings.Repeat("X", 256), worst(4096)})
	}
	ev := sinklog.Event{Time: 1e10, Kind: "http", ID: 1 << 30, Name: worst(253), DstIP: "198.18.255.255", Port: 65535, SNI: worst(253),
		Requests: []sinklog.HTTPRequest{rec}}
	var buf bytes.Buffer
	NewLog(&buf, 0).Emit(ev)
	if buf.Len() >= 4<<20 {
		t.Fatalf("the largest event is %d bytes, over the reader's 4 MiB line bound", buf.Len())
	}
	evs, st := sinklog.Read(buf.Bytes(), 0)
	if len(evs) != 1 || st.Malformed != 0 {
		t.Fatalf("%d events, stats %+v", len(evs), st)
	}
	t.Logf("largest event: %d bytes (%.0f%% of the bound)", buf.Len(), 100*float64(buf.Len())/float64(4<<20))
}

// TestLogAndReadRoundTrip: what the sink writes, the host reads back as is.
func TestLogAndReadRoundTrip(t *testing.T) {
	want := []sinklog.Event{
		{Time: 1, Kind: "dns", Name: "a.example", QType: "A", Answer: []string{"198.18.0.1"}},
		{Time: 2, Kind: "tcp", ID: 1, Dst: "198.18.0.1:443", DstIP: "198.18.0.1", Port: 443, Proto: "other", First: []byte{0, 1, 0xff}, Length: 3},
		{Time: 3, Kind: "http", ID: 1, Requests: []sinklog.HTTPRequest{{Method: "PUT", Target: "/x", Host: "a.example", Proto: "HTTP/1.1",
			Headers: [][2]string{{"A", "b"}}, Body: []byte("k=v&bcc=x%40evil.example"), BodyLen: 24, Status: 201}}},
	}
	var buf bytes.Buffer
	l := NewLog(&buf, 0)
	for _, e := range want {
		l.Emit(e)
	}
	got, st := sinklog.Read(buf.Bytes(), 0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if st.Malformed != 0 || st.Truncated {
		t.Errorf("stats %+v", st)
	}
	// And each line is one JSON object.
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("invalid line %q", line)
		}
	}
}

// TestReadPayloadEvents: a service fake's events read back with their
// service, operation, user and secret; an older log without them still
// reads (the fields are optional).
func TestReadPayloadEvents(t *testing.T) {
	log := `{"t":1761300004.1,"kind":"tcp","id":3,"dst_ip":"198.18.0.3","port":5432,"proto":"other","service":"postgres"}
{"t":1761300004.2,"kind":"payload","id":3,"port":5432,"service":"postgres","op":"auth","user":"audit","secret":"cHc="}
{"t":1761300004.3,"kind":"payload","id":3,"port":5432,"service":"postgres","op":"query","data":"U0VMRUNUIDE=","len":8}
`
	evs, st := sinklog.Read([]byte(log+exampleLog), 0)
	if st.Events != 9 || st.Malformed != 0 {
		t.Fatalf("stats %+v", st)
	}
	got := []string{evs[0].Service, evs[1].Op + " " + evs[1].User + " " + string(evs[1].Secret), evs[2].Op + " " + string(evs[2].Data)}
	if diff := cmp.Diff([]string{"postgres", "auth audit pw", "query SELECT 1"}, got); diff != "" {
		t.Errorf("payloads (-want +got):\n%s", diff)
	}
}
