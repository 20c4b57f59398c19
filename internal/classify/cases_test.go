package classify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// caseResult is what a case's golden file holds: how the trace parsed and
// what the classifier made of it.
type caseResult struct {
	Trace    caseTrace  `json:"trace"`
	Phases   []m.Phase  `json:"phases"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

type caseTrace struct {
	Events    int  `json:"events"`
	Malformed int  `json:"malformed"`
	Truncated bool `json:"truncated"`
}

// TestCases classifies every testdata/cases/NAME.strace, with the sink log
// NAME.sink.jsonl when there is one, and compares the result with
// NAME.json (rewritten with -update). A case is added by adding files.
//
// {{env:NAME}} in either input (also inside the sink log's base64 fields)
// stands for the value of that canary variable, which is fresh in every
// run. A trace that does not end in a
// newline was cut, as the sandbox cuts one at its size limit, and is
// classified as truncated.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.strace")
	if len(files) == 0 {
		t.Fatal("no cases in testdata/cases")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".strace")
		t.Run(name, func(t *testing.T) {
			got := runCase(t, strings.TrimSuffix(f, ".strace"))
			golden := strings.TrimSuffix(f, ".strace") + ".json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// runCase classifies one case the way the audit does: the trace parsed
// with default limits, the sink log read with sinklog.Read.
func runCase(t *testing.T, base string) []byte {
	t.Helper()
	cs := canary.Generate(nil)
	raw, err := os.ReadFile(base + ".strace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Parse(bytes.NewReader(fillCanaries(raw, cs)), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cut := len(raw) > 0 && raw[len(raw)-1] != '\n'
	in := Input{
		Layout:         layout,
		Events:         tr.Events,
		Canaries:       cs,
		Resolvers:      []string{"127.0.0.1"},
		TraceTruncated: tr.Stats.Truncated || cut,
	}
	if log, err := os.ReadFile(base + ".sink.jsonl"); err == nil {
		var st sinklog.ReadStats
		in.Sink, st = sinklog.Read(fillCanaries(log, cs), 0)
		if st.Malformed != 0 {
			t.Fatalf("%s.sink.jsonl has %d malformed lines", base, st.Malformed)
		}
		fillSink(in.Sink, cs)
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := Classify(in)
	res := caseResult{
		Trace:    caseTrace{Events: len(tr.Events), Malformed: tr.Stats.Malformed, Truncated: in.TraceTruncated},
		Phases:   out.Phases,
		Evidence: out.Evidence,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	for _, v := range cs.Env {
		if bytes.Contains(b.Bytes(), []byte(v)) {
			t.Fatal("a canary value leaked into the classified result")
		}
	}
	return b.Bytes()
}

// fillCanaries replaces {{env:NAME}} with the value of that canary.
func fillCanaries(b []byte, cs *canary.Set) []byte {
	for name, v := range cs.Env {
		b = bytes.ReplaceAll(b, []byte("{{env:"+name+"}}"), []byte(v))
	}
	return b
}

// fillSink fills the placeholders in the sink's byte fields, which the log
// carries base64-encoded.
func fillSink(evs []sinklog.Event, cs *canary.Set) {
	for i := range evs {
		e := &evs[i]
		e.First, e.Data, e.Secret = fillCanaries(e.First, cs), fillCanaries(e.Data, cs), fillCanaries(e.Secret, cs)
		for j := range e.Requests {
			e.Requests[j].Body = fillCanaries(e.Requests[j].Body, cs)
		}
	}
}
