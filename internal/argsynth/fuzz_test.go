package argsynth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedSchemas adds the recorded tool schemas and the hostile cases as
// seeds.
func seedSchemas(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var tools []struct {
			InputSchema json.RawMessage `json:"input_schema"`
		}
		if json.Unmarshal(data, &tools) == nil {
			for _, tool := range tools {
				f.Add([]byte(tool.InputSchema), "a tool that reads files")
			}
		}
	}
	for _, s := range []string{`{"$ref":"#"}`, `{"$anchor":"x","allOf":[{"$ref":"#x"}]}`, `{"oneOf":[{"$ref":"#"},{"type":"null"}]}`,
		`{"type":"object","properties":{"a":{"if":{"const":1},"then":{"$ref":"#"}}},"required":["a"]}`,
		`{"type":"array","minItems":99999999,"items":{"type":"string","minLength":99999999}}`, `true`, `false`, `[]`, `"x"`} {
		f.Add([]byte(s), "either `a` or `b`; mutually exclusive with c")
	}
}

// FuzzPlan: any schema and description plan without a panic, within the
// bounds on sets, size and time, and every set is a JSON object.
func FuzzPlan(f *testing.F) {
	seedSchemas(f)
	f.Fuzz(func(t *testing.T, schema []byte, desc string) {
		pool := NewPool(nil)
		pool.Add("call:x", "x", json.RawMessage(schema)) // the schema as a hostile result too
		start := time.Now()
		sets := Plan(Tool{Name: "read_notes", Description: desc, InputSchema: schema}, pool)
		if d := time.Since(start); d > 30*time.Second {
			t.Fatalf("took %v", d)
		}
		if len(sets) > MaxSets {
			t.Fatalf("%d sets", len(sets))
		}
		for _, s := range sets {
			if len(s.Args) > 4*maxOutBytes {
				t.Fatalf("%d bytes", len(s.Args))
			}
			var v map[string]any
			if err := json.Unmarshal(s.Recorded(), &v); err != nil {
				t.Fatalf("recorded set does not parse: %v", err)
			}
			if fixed, ok := Correct(Tool{InputSchema: schema}, s, desc); ok {
				if err := json.Unmarshal(fixed.Args, &v); err != nil {
					t.Fatalf("correction does not parse: %v", err)
				}
			}
		}
	})
}

// FuzzParseError: any message parses without a panic into a bounded
// list, and a correction of a fixed set is a JSON object.
func FuzzParseError(f *testing.F) {
	for _, m := range []string{
		"Provide exactly one of url or alexandria", "At least one of 'term' or 'guid' must be provided",
		"Invalid resourceType: x. Must be Text or Blob.", "Could not extract video ID from: https://a.b/c",
		`Invalid input: [{"code":"invalid_type","expected":"number","received":"undefined","path":["total_count"],"message":"Required"},{"co…`,
		`[{"code":"invalid_union","unionErrors":[{"issues":[{"code":"invalid_enum_value","options":["a"],"path":["m"]}]}]}]`,
		"1 validation error for X\ncount\n  Input should be a valid integer [type=int_parsing, input_value='x', input_type=str]",
		"data/count must be integer", "Either 'code' or 'prom…", "",
	} {
		f.Add(m)
	}
	tool := Tool{Name: "t", InputSchema: obj(`"url":{"type":"string"},"count":{"type":"integer"},"m":{"enum":["a","b"]},"filters":{"type":"object"}`)}
	f.Fuzz(func(t *testing.T, msg string) {
		if is := ParseError(msg); len(is) > maxIssues {
			t.Fatalf("%d issues", len(is))
		}
		fixed, ok := Correct(tool, Set{Args: json.RawMessage(`{"url":"x","count":1,"filters":{"a":[1]}}`)}, msg)
		var v map[string]any
		if ok && json.Unmarshal(fixed.Args, &v) != nil {
			t.Fatalf("correction %s does not parse", fixed.Args)
		}
	})
}

// FuzzPool: any result adds a bounded number of safe entries.
func FuzzPool(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"[{\"name\":\"Ada\",\"id\":\"7\"}]"}]}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"ID: 4182\npath: /home/dev/workspace/.env"}]}`))
	f.Add([]byte(`{"structuredContent":{"items":[{"uri":"file:///etc/passwd"},{"slug":"x"}]}}`))
	f.Fuzz(func(t *testing.T, result []byte) {
		p := NewPool(nil)
		for i := range 3 {
			p.Add("call:a", "a", result)
			if len(p.entries) > min(maxPool, (i+1)*maxPerCall) {
				t.Fatalf("%d entries", len(p.entries))
			}
		}
		for _, e := range p.entries {
			if s, ok := e.value.(string); ok && !p.safe(s) {
				t.Fatalf("kept %q", s)
			}
		}
	})
}
