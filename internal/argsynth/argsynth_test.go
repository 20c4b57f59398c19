package argsynth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSynthesizeValidates(t *testing.T) {
	for name, tc := range map[string]struct{ schema, want string }{
		"empty":        {``, `{}`},
		"no required":  {`{"type":"object","properties":{"q":{"type":"string"}}}`, `{}`},
		"email":        {`{"type":"object","properties":{"to":{"type":"string","format":"email"}},"required":["to"]}`, `{"to":"maria.lindqvist@brightwater-logistics.com"}`},
		"by name":      {`{"type":"object","properties":{"url":{"type":"string"},"path":{"type":"string"}},"required":["url","path"]}`, `{"path":"/home/dev/workspace/README.md","url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"enum":         {`{"type":"object","properties":{"mode":{"enum":["fast","slow"]}},"required":["mode"]}`, `{"mode":"fast"}`},
		"bounds":       {`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9},"x":{"type":"number","exclusiveMinimum":0,"maximum":0.5}},"required":["n","x"]}`, `{"n":5,"x":0.5}`},
		"multipleOf":   {`{"type":"object","properties":{"n":{"type":"integer","minimum":3,"multipleOf":4}},"required":["n"]}`, `{"n":4}`},
		"array nested": {`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}},"required":["name","tags"]}}},"required":["entities"]}`, `{"entities":[{"name":"Maria Lindqvist","tags":["Quarterly report","Quarterly report-2"]}]}`},
		"ref":          {`{"type":"object","$defs":{"p":{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}},"properties":{"person":{"$ref":"#/$defs/p"}},"required":["person"]}`, `{"person":{"email":"maria.lindqvist@brightwater-logistics.com"}}`},
		"anyOf null":   {`{"type":"object","properties":{"limit":{"anyOf":[{"type":"null"},{"type":"integer","minimum":10}]}},"required":["limit"]}`, `{"limit":10}`},
		"pattern":      {`{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{2}$"}},"required":["code"]}`, `{"code":"AAA-00"}`},
		"lengths":      {`{"type":"object","properties":{"s":{"type":"string","minLength":20},"t":{"type":"string","maxLength":3}},"required":["s","t"]}`, `{"s":"Quarterly reportxxxx","t":"Qua"}`},
		"date-time":    {`{"type":"object","properties":{"since":{"type":"string","format":"date-time"}},"required":["since"]}`, `{"since":"2026-01-01T00:00:00Z"}`},
		"const":        {`{"type":"object","properties":{"v":{"const":2}},"required":["v"]}`, `{"v":2}`},
		"draft07 bool": {`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`, `{"ok":false}`},
	} {
		t.Run(name, func(t *testing.T) {
			got, valid, err := Synthesize(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if !valid {
				t.Errorf("synthesized arguments do not validate")
			}
		})
	}
}

// TestRealToolSchemas synthesizes arguments for every tool schema recorded
// from real servers and requires them to validate.
func TestRealToolSchemas(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		if err := json.Unmarshal(data, &tools); err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			n++
			got, valid, err := Synthesize(tool.InputSchema)
			if err != nil || !valid {
				t.Errorf("%s %s: %s valid=%v err=%v", filepath.Base(f), tool.Name, got, valid, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no recorded schemas")
	}
	t.Logf("%d tool schemas", n)
}

// TestValuesLookReal keeps synthesized values free of what would tell a
// server it is being audited: the auditor's name, reserved test domains.
func TestValuesLookReal(t *testing.T) {
	names := []string{"text", "email", "url", "host", "path", "dir", "id", "name", "username", "query", "company", "title"}
	for _, n := range names {
		v := ForName(n)
		for _, bad := range []string{"mcp-audit", "audit", "probe", ".test", ".example", "example.", ".invalid", ".localhost"} {
			if strings.Contains(strings.ToLower(v), bad) {
				t.Errorf("value for %q is %q: contains %q", n, v, bad)
			}
		}
	}
}
