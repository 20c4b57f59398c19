package sink

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// FuzzRead feeds Read hostile logs: the sink writes the log, but the
// audited server chooses most of its content, and a compromised sink
// could write anything. Read must not panic, must keep within its event
// bound, and must return only events that carry a kind and encode again.
func FuzzRead(f *testing.F) {
	f.Add([]byte(exampleLog), 0)
	for _, line := range strings.Split(exampleLog, "\n") {
		f.Add([]byte(line), 1)
	}
	f.Add([]byte(`{"kind":"error","error":"log size limit reached; later events dropped"}`), 0)
	f.Add([]byte("{\"kind\":\"dns\",\"name\":\"\xff\xfe\u202e\"}\n{\"kind\":"), 2)
	f.Add([]byte(`{"kind":"http","requests":[{"headers":[["a"]],"body":"!!"}]}`), 0)
	f.Add([]byte(`{"kind":"tcp","first":null,"answer":[null],"t":1e400}`), 0)
	f.Add([]byte(`{"kind":"payload","service":"mysql","op":"auth","user":"\u0000","secret":"!!","data":"AA=="}`), 0)
	f.Add([]byte("\n\r\n\x00{}[]null"), 0)
	f.Fuzz(func(t *testing.T, data []byte, maxEvents int) {
		evs, st := sinklog.Read(data, maxEvents)
		bound := maxEvents
		if bound <= 0 {
			bound = 200_000
		}
		if st.Events != len(evs) || len(evs) > bound {
			t.Fatalf("%d events, stats %+v, bound %d", len(evs), st, bound)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if st.Events+st.Malformed > lines+1 {
			t.Fatalf("%d events and %d malformed from %d lines", st.Events, st.Malformed, lines)
		}
		for _, e := range evs {
			if e.Kind == "" {
				t.Fatalf("event without a kind: %+v", e)
			}
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("event does not encode: %v", err)
			}
		}
	})
}
