package clientconfig

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plain turns a parsed value into what encoding/json would decode.
func plain(v *jvalue) any {
	switch v.kind {
	case jBool:
		return v.b
	case jNumber:
		f, _ := strconv.ParseFloat(v.str, 64)
		return f
	case jString:
		return v.str
	case jArray:
		out := []any{}
		for _, x := range v.arr {
			out = append(out, plain(x))
		}
		return out
	case jObject:
		out := map[string]any{}
		for _, m := range v.obj {
			out[m.key] = plain(m.val)
		}
		return out
	}
	return nil
}

func TestJSONCAccepts(t *testing.T) {
	cases := []struct {
		name, in string
		want     any
		ext      ext
	}{
		{"strict", `{"a": [1, "x", true, null]}`, map[string]any{"a": []any{1.0, "x", true, nil}}, ext{}},
		{"line comment", "{\n// c\n\"a\": 1}", map[string]any{"a": 1.0}, ext{comment: 2}},
		{"block comment", "{\"a\": /* x\n y */ 1}", map[string]any{"a": 1.0}, ext{comment: 1}},
		{"trailing commas", "{\n\"a\": [1, 2,],\n\"b\": {},\n}", map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{}}, ext{trailingComma: 2}},
		{"comment in string is text", `{"u": "http://x.example/*y*/"}`, map[string]any{"u": "http://x.example/*y*/"}, ext{}},
		{"escapes", `{"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, map[string]any{"s": "a\"\\/\b\f\n\r\té😀"}, ext{}},
		{"bom", "\xef\xbb\xbf{}", map[string]any{}, ext{}},
		{"duplicate key keeps last", `{"a": 1, "a": 2}`, map[string]any{"a": 2.0}, ext{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, x, err := parseJSONC([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, plain(v)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if x != c.ext {
				t.Errorf("extensions %+v, want %+v", x, c.ext)
			}
		})
	}
}

func TestJSONCLines(t *testing.T) {
	v, _, err := parseJSONC([]byte("{\r\n  \"mcpServers\": {\n    /* a */\n    \"x\": {\n      \"command\": \"npx\"\n    }\n  }\n}"))
	if err != nil {
		t.Fatal(err)
	}
	x := v.get("mcpServers").members()[0]
	if x.line != 4 || x.val.get("command").line != 5 {
		t.Errorf("lines: server %d, command %d; want 4 and 5", x.line, x.val.get("command").line)
	}
}

func TestJSONCRejects(t *testing.T) {
	cases := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"missing comma", "{\n\"a\": 1\n\"b\": 2}", 3, `expected a comma or } after the value of "a"`},
		{"unclosed object", "{\n\"a\": {\n", 3, "the { opened on line 2"},
		{"unclosed string", "{\"a\": \"x\n}", 1, "string is not closed"},
		{"single quotes", "{\"a\": 'x'}", 1, "double quotes"},
		{"bare word", "{\"a\": npx}", 1, "expected a value"},
		{"unquoted key", "{a: 1}", 1, "expected a key in double quotes"},
		{"unclosed comment", "{\n/* x\n}", 2, "comment is not closed"},
		{"text after", "{} x", 1, "more text after"},
		{"empty", "  \n", 2, "empty"},
		{"bad escape", `{"a": "\q"}`, 1, "escape"},
		{"deep", strings.Repeat("[", maxDepth+2), 1, "nested"},
		{"colon", `{"a" 1}`, 1, "colon"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseJSONC([]byte(c.in))
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a syntax error", err)
			}
			if se.line != c.line || !strings.Contains(se.msg, c.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", se.line, se.msg, c.line, c.msg)
			}
		})
	}
}

// FuzzJSONC: the reader never panics, and on strict JSON agrees with
// encoding/json.
func FuzzJSONC(f *testing.F) {
	for _, s := range []string{`{"mcpServers":{"a":{"command":"npx","args":["-y","x@1"]}}}`, "{// c\n\"a\":[1,2,],}",
		`{"s":"\ud83d\ude00\u0000"}`, `[1e400, -0.5, "\ud800"]`, "/* */ {}", `{"a":{"b":{"c":[[[]]]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := parseJSONC(data)
		if !json.Valid(data) {
			return
		}
		var want any
		if json.Unmarshal(data, &want) != nil {
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "nested") || strings.Contains(err.Error(), "values") {
				return
			}
			t.Fatalf("valid JSON rejected: %v", err)
		}
		if diff := cmp.Diff(want, plain(v)); diff != "" {
			t.Fatalf("differs from encoding/json (-want +got):\n%s", diff)
		}
	})
}
