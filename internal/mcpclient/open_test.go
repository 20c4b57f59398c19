package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

const (
	discoverResult = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"}}}`
	legacyInit     = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"l","version":"1"}}`
)

func errReply(out io.Writer, id any, code int, msg, data string) {
	b, _ := json.Marshal(id)
	d := ""
	if data != "" {
		d = `,"data":` + data
	}
	io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(b)+`,"error":{"code":`+itoa(code)+`,"message":"`+msg+`"`+d+`}}`+"\n")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestOpenAuto(t *testing.T) {
	unsupported := `{"supported":["2026-07-28"],"requested":"2025-06-18"}`
	cases := []struct {
		name      string
		handle    func(req map[string]any, out io.Writer)
		opts      OpenOptions
		era       Era
		outcome   string
		late      bool
		wantErr   string // in the error, when the opening fails
		sentNoIni bool   // initialize must not be sent
	}{
		{name: "modern answers the probe", handle: func(req map[string]any, out io.Writer) {
			if req["method"] == "server/discover" {
				reply(out, req["id"], discoverResult)
			}
		}, era: EraModern, outcome: ProbeDiscover, sentNoIni: true},
		{name: "2025 refuses the probe", handle: func(req map[string]any, out io.Writer) {
			switch req["method"] {
			case "server/discover":
				errReply(out, req["id"], -32601, "Method not found", "")
			case "initialize":
				reply(out, req["id"], legacyInit)
			}
		}, era: EraLegacy, outcome: ProbeOtherError},
		{name: "2025 ignores the probe", handle: func(req map[string]any, out io.Writer) {
			if req["method"] == "initialize" {
				reply(out, req["id"], legacyInit)
			}
		}, opts: OpenOptions{ProbeStartup: 150 * time.Millisecond}, era: EraLegacy, outcome: ProbeTimeout},
		{name: "modern slower than the deadline, then refuses initialize", handle: func(req map[string]any, out io.Writer) {
			switch req["method"] {
			case "server/discover":
				if req["id"] == ProbeID {
					time.Sleep(300 * time.Millisecond)
				}
				reply(out, req["id"], discoverResult)
			case "initialize":
				errReply(out, req["id"], CodeUnsupportedVersion, "Unsupported protocol version", unsupported)
			}
		}, opts: OpenOptions{ProbeStartup: 100 * time.Millisecond}, era: EraModern, outcome: ProbeTimeout, late: true},
		{name: "a modern error without a common version", handle: func(req map[string]any, out io.Writer) {
			errReply(out, req["id"], CodeUnsupportedVersion, "Unsupported protocol version", `{"supported":["2027-01-01"]}`)
		}, wantErr: "server/discover was answered with an error: json-rpc error -32022: Unsupported protocol version (supported: 2027-01-01)", sentNoIni: true},
		{name: "the server exits on the probe", handle: func(req map[string]any, out io.Writer) {
			out.(io.Closer).Close()
		}, wantErr: "the server closed its output before answering server/discover", sentNoIni: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sentInit := false
			c := fakeServer(t, func(req map[string]any, out io.Writer) {
				if req["method"] == "initialize" {
					sentInit = true
				}
				tc.handle(req, out)
			})
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			o, err := c.Open(ctx, tc.opts)
			if tc.wantErr != "" {
				var oe *OpenError
				if !errors.As(err, &oe) || err.Error() != tc.wantErr || time.Since(start) > time.Second {
					t.Fatalf("err = %v after %v, want %q", err, time.Since(start), tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if o.Era != tc.era || o.Probe.Outcome != tc.outcome || o.Probe.Late != tc.late || c.Era() != tc.era {
				t.Errorf("opening %+v, probe %+v", o, o.Probe)
			}
			if tc.sentNoIni && sentInit {
				t.Error("initialize was sent")
			}
		})
	}
}

// Ready starts the short probe deadline early: a server known to be up
// that ignores the probe costs ProbeTimeout, not ProbeStartup.
func TestOpenReadyShortensTheProbe(t *testing.T) {
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		if req["method"] == "initialize" {
			reply(out, req["id"], legacyInit)
		}
	})
	ready := make(chan struct{})
	close(ready)
	start := time.Now()
	o, err := c.Open(context.Background(), OpenOptions{Ready: ready, ProbeTimeout: 50 * time.Millisecond, ProbeStartup: time.Minute})
	if err != nil || o.Probe.Outcome != ProbeTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("%v %+v after %v", err, o, time.Since(start))
	}
}

// Once modern, every request carries the envelope; the caller's own _meta
// keys stay but cannot replace the reserved ones. A 2025 session sends
// params untouched.
func TestEnvelope(t *testing.T) {
	got := make(chan map[string]any, 4)
	c := fakeServer(t, func(req map[string]any, out io.Writer) {
		switch req["method"] {
		case "server/discover":
			reply(out, req["id"], discoverResult)
		case "tools/call":
			got <- req["params"].(map[string]any)
			reply(out, req["id"], `{"content":[]}`)
		}
	})
	ctx := openCtx(t)
	if _, err := c.Open(ctx, OpenOptions{Protocol: ProtocolModern}); err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"name": "x", "_meta": map[string]any{"progressToken": 7, MetaProtocolVersion: "1999-01-01"}}
	if _, err := c.Call(ctx, "tools/call", params); err != nil {
		t.Fatal(err)
	}
	meta := (<-got)["_meta"].(map[string]any)
	caps, _ := json.Marshal(meta[MetaClientCapabilities])
	if meta[MetaProtocolVersion] != ProtocolModern || meta["progressToken"] != float64(7) || !strings.Contains(string(caps), ExtTasks) ||
		meta[MetaClientInfo].(map[string]any)["name"] != DefaultClientName {
		t.Errorf("meta %v", meta)
	}
}
