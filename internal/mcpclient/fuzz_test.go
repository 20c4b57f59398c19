package mcpclient

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Native fuzz tests of every parser of server input. Each is seeded with
// the server messages of the captured transcripts and checks the bounds
// the parser promises, not just that it does not panic.

// seedServerMessages adds every server message (and HTTP answer) of the
// transcripts, and each one's result, to f.
func seedServerMessages(f *testing.F) {
	files, _ := filepath.Glob("testdata/transcripts/*.jsonl")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var r record
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue
			}
			for _, m := range []json.RawMessage{r.S, answerOf(r.H)} {
				var msg struct {
					Result json.RawMessage `json:"result"`
				}
				if len(m) > 0 {
					f.Add([]byte(m))
					if json.Unmarshal(m, &msg) == nil && len(msg.Result) > 0 {
						f.Add([]byte(msg.Result))
					}
				}
			}
		}
	}
	f.Add([]byte(`{"resultType":"task","taskId":"` + strings.Repeat("t", 300) + `","status":"working","pollIntervalMs":-9223372036854775808}`))
	f.Add([]byte(`{"ttlMs":"5","cacheScope":7,"supportedVersions":[1,"2026-07-28"],"capabilities":{"extensions":[]}}`))
}

func answerOf(h *httpRecord) json.RawMessage {
	if h == nil || !json.Valid([]byte(h.Answer)) {
		return nil
	}
	return json.RawMessage(h.Answer)
}

func FuzzParseDiscover(f *testing.F) {
	seedServerMessages(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseDiscover(b)
		if err != nil {
			return
		}
		if len(o.SupportedVersions) > maxVersions || len(o.Extensions) > maxExtensions {
			t.Fatalf("unbounded: %d versions, %d extensions", len(o.SupportedVersions), len(o.Extensions))
		}
		for _, v := range o.SupportedVersions {
			if len(v) > 64 {
				t.Fatalf("version of %d bytes", len(v))
			}
		}
	})
}

func FuzzParseMeta(f *testing.F) {
	seedServerMessages(f)
	f.Add([]byte(`{"RESULTTYPE":"task"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m := ParseMeta(b)
		if _, exact := fields(b)["resultType"]; !exact && m.Type != ResultComplete {
			t.Fatalf("type %q read from a member not named resultType", m.Type)
		}
		if len(m.Type) > 40 || len(m.Cache.Scope) > 40 || m.Cache.TTLMs < -1 || len(m.Subscription) > 256 {
			t.Fatalf("meta %+v", m)
		}
	})
}

func FuzzParseInputRequired(f *testing.F) {
	seedServerMessages(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		ir, err := ParseInputRequired(b)
		if err != nil {
			return
		}
		if len(ir.Requests) > maxInputRequests {
			t.Fatalf("%d requests", len(ir.Requests))
		}
		for _, r := range ir.Requests {
			if len(r.Key) > maxInputKey || len(r.Method) > 100 {
				t.Fatalf("request %q %q", r.Key, r.Method)
			}
		}
		if ir.State != nil && len(*ir.State) > maxRequestState && !ir.BigState {
			t.Fatal("a big state not marked")
		}
	})
}

func FuzzParseTask(f *testing.F) {
	seedServerMessages(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		task, ok := ParseTask(b)
		if !ok {
			return
		}
		if task.TaskID == "" || len(task.TaskID) > maxTaskID || len(task.StatusMessage) > maxTaskMessage || len(task.Status) > 40 {
			t.Fatalf("task %+v", task)
		}
		if d := pollInterval(task.PollIntervalMs); d < minPoll || d > maxPoll {
			t.Fatalf("poll interval %v from %d", d, task.PollIntervalMs)
		}
	})
}

func FuzzToolHeaders(f *testing.F) {
	seedServerMessages(f)
	f.Add([]byte(`{"name":"q","inputSchema":{"properties":{"a":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}},"l":{"items":{"x-mcp-header":"L"}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, params, err := ToolHeaders(b)
		if err != nil {
			return
		}
		if len(params) > maxDeclared {
			t.Fatalf("%d declarations", len(params))
		}
		seen := map[string]bool{}
		for _, p := range params {
			if !isToken(p.Header) || len(p.Path) == 0 || seen[strings.ToLower(p.Header)] {
				t.Fatalf("declaration %+v", p)
			}
			seen[strings.ToLower(p.Header)] = true
		}
	})
}

// FuzzHeaderValue: whatever an argument holds, its header value is a
// valid field value (no control characters, no line breaks), and plain
// text is kept as is.
func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"us-west1", "Hello, 世界", " padded ", "a\r\nX-Evil: 1", "=?base64?x?=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := headerValue(s)
		for i := 0; i < len(v); i++ {
			if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
				t.Fatalf("%q -> %q", s, v)
			}
		}
		if !strings.HasPrefix(v, "=?base64?") && v != s {
			t.Fatalf("%q -> %q", s, v)
		}
		if utf8.ValidString(s) && strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=") && v == s {
			t.Fatalf("a sentinel look-alike was sent plain: %q", s)
		}
	})
}

func FuzzParseCompletion(f *testing.F) {
	seedServerMessages(f)
	f.Add([]byte(`{"completion":{"values":["alpha",1,"beta"],"total":3,"hasMore":true}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCompletion(b)
		if err != nil {
			return
		}
		if len(c.Values) > maxCompletionValues || c.Total < 0 {
			t.Fatalf("completion %d values, total %d", len(c.Values), c.Total)
		}
		for _, v := range c.Values {
			if len(v) > maxCompletionValue {
				t.Fatalf("value of %d bytes", len(v))
			}
		}
	})
}

func FuzzModernError(f *testing.F) {
	f.Add(-32022, []byte(`{"supported":["2026-07-28"],"requested":"2025-06-18"}`))
	f.Add(-32004, []byte(`{"supported":[]}`))
	f.Add(-32601, []byte(`null`))
	f.Fuzz(func(t *testing.T, code int, data []byte) {
		v, ok := modernError(&RPCError{Code: code, Data: data})
		if ok && code != CodeUnsupportedVersion && code != codeUnsupportedDraft || len(v) > maxVersions {
			t.Fatalf("code %d: %v %v", code, v, ok)
		}
	})
}

// FuzzScanEvents: an event stream yields events whose name and data stay
// within their bounds, however the stream is cut.
func FuzzScanEvents(f *testing.F) {
	f.Add([]byte(": hi\n\nevent: endpoint\ndata: /messages?sessionId=1\n\nevent: message\ndata: {\"a\":\ndata: 1}\r\n\r\n"), 16)
	f.Add([]byte("database: x\ndata:no-space\n\nevent:"+strings.Repeat("e", 300)+"\ndata: x\n"), 4)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		max = 1 + abs(max)%4096
		_ = scanEvents(strings.NewReader(string(b)), max, func(event string, data []byte) bool {
			if len(event) > 100 || len(data) > max {
				t.Fatalf("event %d bytes, data %d bytes (max %d)", len(event), len(data), max)
			}
			return true
		})
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
