package sinklog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestReadProbes: lines written by the probe come back as written; bad
// lines are counted and skipped, and every field is bounded.
func TestReadProbes(t *testing.T) {
	good, _ := json.Marshal(Probe{Address: "127.0.0.1", Port: 8080, Request: "GET /", Status: 200,
		Headers: []string{"Access-Control-Allow-Origin: *"}, Body: []byte("hello")})
	huge, _ := json.Marshal(Probe{Address: strings.Repeat("a", 500), Port: 1, Request: "banner", Body: bytes.Repeat([]byte("x"), MaxProbeBody+10),
		Headers: []string{strings.Repeat("h", 5000)}})
	data := string(good) + "\nnot json\n" + `{"port":0,"request":"banner"}` + "\n" + string(huge) + "\n"
	ps, bad := ReadProbes([]byte(data))
	if bad != 2 || len(ps) != 2 {
		t.Fatalf("probes %d, malformed %d", len(ps), bad)
	}
	if ps[0].Status != 200 || string(ps[0].Body) != "hello" || ps[0].Headers[0] != "Access-Control-Allow-Origin: *" {
		t.Errorf("first %+v", ps[0])
	}
	if len(ps[1].Address) != 64 || len(ps[1].Body) != MaxProbeBody || len(ps[1].Headers[0]) != MaxProbeHeader {
		t.Errorf("second not bounded: %d %d %d", len(ps[1].Address), len(ps[1].Body), len(ps[1].Headers[0]))
	}
}

// FuzzReadProbes: whatever the probe's output holds, reading it back
// stays within its bounds.
func FuzzReadProbes(f *testing.F) {
	good, _ := json.Marshal(Probe{Address: "::", Port: 9, Request: "GET /.env", Headers: []string{"A: b"}, Body: []byte{0, 1}})
	f.Add(good)
	f.Add([]byte("{}\n{\"port\":1,\"request\":\"x\",\"headers\":null}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, _ := ReadProbes(data)
		if len(ps) > MaxProbes {
			t.Fatalf("%d probes", len(ps))
		}
		for _, p := range ps {
			if len(p.Body) > MaxProbeBody || len(p.Headers) > MaxProbeHeaders || len(p.Request) > 256 {
				t.Fatalf("unbounded %+v", p)
			}
		}
	})
}
