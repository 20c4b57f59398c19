package sink

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

func TestLooksHTTP(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"GET / HT", true},
		{"POST /em", true},
		{"OPTIONS ", true},
		{"CONNECT ", true},
		{"PAT", true}, // a short first segment that could still be PATCH
		{"GE", false}, // too short to tell
		{"", false},
		{"get / HT", false}, // methods are case-sensitive
		{"GETX / H", false},
		{"\x16\x03\x01\x02\x00\x01\x00\x01", false}, // a TLS ClientHello
		{"SSH-2.0-", false},
		{"BREW /po", false},
	} {
		if got := looksHTTP([]byte(tc.in)); got != tc.want {
			t.Errorf("looksHTTP(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestResponsePicksTheMostSpecificCannedAnswer(t *testing.T) {
	s := &Sink{cfg: sinklog.Config{Responses: map[string]sinklog.Response{
		"api.mail.example": {Status: 201, Body: `{"id":1}`},
		"sni.example":      {Status: 202, ContentType: "text/plain", Body: "sni"},
		"dns.example":      {Body: "dns"},
		"*":                {Status: 404, Body: "default"},
	}}}
	for _, tc := range []struct {
		name string
		host string
		conn sinklog.Event
		want sinklog.Response
	}{
		{"host header", "API.Mail.Example:443", sinklog.Event{}, sinklog.Response{Status: 201, ContentType: "application/json", Body: `{"id":1}`}},
		{"sni when the host is unknown", "10.0.0.1", sinklog.Event{SNI: "sni.example"}, sinklog.Response{Status: 202, ContentType: "text/plain", Body: "sni"}},
		{"looked-up name", "", sinklog.Event{Name: "dns.example"}, sinklog.Response{Status: 200, ContentType: "application/json", Body: "dns"}},
		{"default entry", "other.example", sinklog.Event{}, sinklog.Response{Status: 404, ContentType: "application/json", Body: "default"}},
		{"IPv6 literal keeps its brackets", "[::1]", sinklog.Event{}, sinklog.Response{Status: 404, ContentType: "application/json", Body: "default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := s.canned(tc.host, tc.conn)
			if !ok {
				t.Fatal("no canned response")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
	bare := &Sink{}
	if r, ok := bare.canned("x.example", sinklog.Event{}); ok {
		t.Errorf("without canned responses: %+v", r)
	}
}

func TestLogStopsAtItsLimitWithOneErrorEvent(t *testing.T) {
	var buf bytes.Buffer
	l := NewLog(&buf, 300)
	for i := range 20 {
		l.Emit(sinklog.Event{Time: float64(i + 1), Kind: "dns", Name: "host.example", QType: "A"})
	}
	evs, st := sinklog.Read(buf.Bytes(), 0)
	if !st.Truncated || st.Malformed != 0 {
		t.Errorf("stats %+v, want truncated and nothing malformed", st)
	}
	last := evs[len(evs)-1]
	if last.Kind != "error" || !strings.Contains(last.Error, "size limit") {
		t.Errorf("last event %+v, want the size-limit error", last)
	}
	if len(evs) >= 20 {
		t.Errorf("%d events, want fewer than were emitted", len(evs))
	}
	// The marker may overshoot the limit by itself only.
	if int64(buf.Len()) > 300+int64(len(`{"t":20,"kind":"error","error":"log size limit reached; later events dropped"}`))+1 {
		t.Errorf("log of %d bytes", buf.Len())
	}
}

func TestLogStampsTime(t *testing.T) {
	var buf bytes.Buffer
	NewLog(&buf, 0).Emit(sinklog.Event{Kind: "ready"})
	evs, _ := sinklog.Read(buf.Bytes(), 0)
	if len(evs) != 1 || evs[0].Time < 1e9 {
		t.Errorf("events %+v, want one with a Unix time", evs)
	}
}

// TestServeHTTPRecordsRequests drives the request loop over an in-memory
// connection: a POST like postmark-mcp's, then a request that closes.
func TestServeHTTPRecordsRequests(t *testing.T) {
	var log bytes.Buffer
	s := &Sink{cfg: sinklog.Config{MaxBody: 16, Responses: map[string]sinklog.Response{"*": {Status: 200, Body: `{"ok":true}`}}}, log: NewLog(&log, 0)}
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close() // the sink's caller closes the connection
		conn := sinklog.Event{Name: "api.mail.example", DstIP: "198.18.0.1", Port: 443, SNI: "api.mail.example"}
		s.serveHTTP(7, conn, server, bufio.NewReader(server))
	}()
	body := `{"From":"a@b.example","To":"c@d.example","Bcc":"x@evil.example"}`
	reqs := "POST /email HTTP/1.1\r\nHost: api.mail.example\r\nX-Token: t\r\nAccept: */*\r\nAccept: text/plain\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body +
		"GET /ping?x=1 HTTP/1.1\r\nHost: api.mail.example\r\nConnection: close\r\n\r\n"
	go func() { io.WriteString(client, reqs) }()
	answers, _ := io.ReadAll(client)
	<-done
	if n := strings.Count(string(answers), "HTTP/1.1 200 OK"); n != 2 {
		t.Errorf("%d answers:\n%s", n, answers)
	}
	evs, st := sinklog.Read(log.Bytes(), 0)
	if st.Malformed != 0 {
		t.Fatalf("stats %+v", st)
	}
	for i := range evs {
		evs[i].Time = 0
	}
	want := []sinklog.Event{
		{Kind: "http", ID: 7, Name: "api.mail.example", DstIP: "198.18.0.1", Port: 443, SNI: "api.mail.example",
			Requests: []sinklog.HTTPRequest{{Method: "POST", Target: "/email", Host: "api.mail.example", Proto: "HTTP/1.1",
				Headers: [][2]string{{"Accept", "*/*"}, {"Accept", "text/plain"}, {"Content-Length", strconv.Itoa(len(body))}, {"X-Token", "t"}},
				Body:    []byte(body[:16]), BodyLen: int64(len(body)), Truncated: true, BodySHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(body))), Status: 200}}},
		{Kind: "http", ID: 7, Name: "api.mail.example", DstIP: "198.18.0.1", Port: 443, SNI: "api.mail.example",
			Requests: []sinklog.HTTPRequest{{Method: "GET", Target: "/ping?x=1", Host: "api.mail.example", Proto: "HTTP/1.1",
				Headers: [][2]string{{"Connection", "close"}}, Status: 200}}},
	}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPrefixConnReplaysBufferedBytes(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	go func() { io.WriteString(client, "hello world"); client.Close() }()
	br := bufio.NewReader(server)
	if _, err := br.Peek(5); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(&prefixConn{Conn: server, r: br})
	if string(got) != "hello world" {
		t.Errorf("read %q, want the peeked bytes too", got)
	}
}
