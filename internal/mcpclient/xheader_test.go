package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolHeaders(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []HeaderParam
		err          string
	}{
		{"top level", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`,
			[]HeaderParam{{Path: []string{"region"}, Header: "Region", Type: "string"}}, ""},
		{"nested through properties", `{"properties":{"a":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}}}}}`,
			[]HeaderParam{{Path: []string{"a", "b"}, Header: "B", Type: "boolean"}, {Path: []string{"a", "n"}, Header: "N", Type: "integer"}}, ""},
		{"under items", `{"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, nil, "l.<items>: x-mcp-header is allowed only"},
		{"under anyOf", `{"anyOf":[{"properties":{"x":{"type":"string","x-mcp-header":"X"}}}]}`, nil, "allowed only on a property reached through properties"},
		{"under $defs", `{"$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`, nil, "allowed only"},
		{"a number", `{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, nil, `type "number"`},
		{"not a token", `{"properties":{"n":{"type":"string","x-mcp-header":"Bad Name"}}}`, nil, "not an HTTP token"},
		{"CR LF", `{"properties":{"n":{"type":"string","x-mcp-header":"A\r\nX-Evil: 1"}}}`, nil, "not an HTTP token"},
		{"twice, in other case", `{"properties":{"a":{"type":"string","x-mcp-header":"Id"},"b":{"type":"string","x-mcp-header":"ID"}}}`, nil, "declared twice"},
		{"on the root", `{"type":"string","x-mcp-header":"R"}`, nil, "allowed only"},
		{"none", `{"type":"object"}`, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := ToolHeaders(json.RawMessage(`{"name":"t","inputSchema":` + tc.schema + `}`))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The revision's encoding examples.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"inner space":        "inner space",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMirror(t *testing.T) {
	b := newHeaderBook()
	b.learn([]json.RawMessage{
		json.RawMessage(`{"name":"q","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"f":{"type":"boolean","x-mcp-header":"F"},"m":{"type":"string","x-mcp-header":"Missing"}}}}`),
		json.RawMessage(`{"name":"bad","inputSchema":{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}}`),
	})
	got := b.mirror(json.RawMessage(`{"name":"q","arguments":{"r":"eu","n":42,"f":true,"m":null}}`))
	want := [][2]string{{"Mcp-Param-F", "true"}, {"Mcp-Param-N", "42"}, {"Mcp-Param-Region", "eu"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := b.mirror(json.RawMessage(`{"name":"q","arguments":{"n":1.5,"r":7}}`)); len(got) != 0 {
		t.Errorf("mistyped values mirrored: %v", got)
	}
	if _, ok := b.rejected["bad"]; !ok || len(b.mirrored) != 3 {
		t.Errorf("rejected %v mirrored %v", b.rejected, b.mirrored)
	}
}
