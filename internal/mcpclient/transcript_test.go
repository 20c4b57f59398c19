package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// Transcripts are exchanges captured from the real SDK fixture servers
// (testdata/transcripts/*.jsonl, see testdata/transcripts/README.md), one
// record a line: a message the client sent ("c"), one the server sent
// ("s"), a line of the server's stderr ("e"), or for HTTP one whole
// exchange ("h").

type record struct {
	C json.RawMessage `json:"c,omitempty"`
	S json.RawMessage `json:"s,omitempty"`
	E string          `json:"e,omitempty"`
	H *httpRecord     `json:"h,omitempty"`
	// Note is what the capture measured or asserted at this point.
	Note string `json:"note,omitempty"`
}

// httpRecord is one POST (or GET) and its answer.
type httpRecord struct {
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers,omitempty"` // the MCP headers only
	Body    json.RawMessage   `json:"body,omitempty"`
	Status  int               `json:"status"`
	Type    string            `json:"type,omitempty"` // the answer's Content-Type
	Answer  string            `json:"answer,omitempty"`
}

// mcpHeaders are the request headers a transcript keeps.
func mcpHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "mcp-") || lk == "last-event-id" {
			out[http.CanonicalHeaderKey(k)] = strings.Join(v, ", ")
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func readTranscript(t *testing.T, name string) []record {
	t.Helper()
	f, err := os.Open("testdata/transcripts/" + name + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, r)
	}
	return out
}

// recorder collects a transcript while a capture runs.
type recorder struct {
	mu  sync.Mutex
	out []record
}

func (r *recorder) add(rec record) {
	r.mu.Lock()
	r.out = append(r.out, rec)
	r.mu.Unlock()
}

func (r *recorder) write(t *testing.T, name string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for _, rec := range r.out {
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile("testdata/transcripts/"+name+".jsonl", b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordingTransport records each HTTP exchange; the answer is read in
// full before it is handed on, except an event stream that stays open
// (subscriptions/listen), which is recorded as it is read.
type recordingTransport struct {
	next http.RoundTripper
	rec  *recorder
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	h := &httpRecord{Method: req.Method, Headers: mcpHeaders(req.Header)}
	if json.Valid(body) {
		h.Body = body
	}
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	h.Status, h.Type = resp.StatusCode, resp.Header.Get("Content-Type")
	resp.Body = &teeBody{rc: resp.Body, done: func(b []byte) { h.Answer = string(b); rt.rec.add(record{H: h}) }}
	return resp, nil
}

// teeBody keeps what was read of a body and reports it at close.
type teeBody struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	once sync.Once
	done func([]byte)
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.buf.Write(p[:n])
	return n, err
}

func (b *teeBody) Close() error {
	b.once.Do(func() { b.done(b.buf.Bytes()) })
	return b.rc.Close()
}
