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
		"one text":     {`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, `{"text":"Quarterly report"}`},
		"enum":         {`{"type":"object","properties":{"mode":{"enum":["fast","slow"]}},"required":["mode"]}`, `{"mode":"fast"}`},
		"array nested": {`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}},"required":["name","tags"]}}},"required":["entities"]}`, `{"entities":[{"name":"Maria Lindqvist","tags":["Quarterly report","Shipment schedule for November"]}]}`},
		"pattern":      {`{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{2}$"}},"required":["code"]}`, `{"code":"AAA-00"}`},
		"date-time":    {`{"type":"object","properties":{"since":{"type":"string","format":"date-time"}},"required":["since"]}`, `{"since":"2026-01-15T09:30:00Z"}`},
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

// TestSynthesizeBadSchema: a schema that is not JSON is an error, and
// {} is sent.
func TestSynthesizeBadSchema(t *testing.T) {
	got, valid, err := Synthesize(json.RawMessage(`{"type":`))
	if err == nil || valid || string(got) != `{}` {
		t.Errorf("got %s valid=%v err=%v", got, valid, err)
	}
}

// TestValidateRefusesSelfReference: the validator recurses forever on a
// schema that refers to itself at one location and the stack overflow
// kills the process; Validate refuses such a schema instead (without
// guard this test crashes the test binary).
func TestValidateRefusesSelfReference(t *testing.T) {
	for _, schema := range []string{`{"$ref":"#"}`, `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, `{"$anchor":"x","anyOf":[{"$ref":"#x"}]}`} {
		if err := Validate(json.RawMessage(schema), json.RawMessage(`{}`)); err == nil {
			t.Errorf("%s: validated", schema)
		}
	}
	// Control: recursion through a property descends into the value and
	// is validated.
	tree := `{"type":"object","properties":{"child":{"$ref":"#"}}}`
	if err := Validate(json.RawMessage(tree), json.RawMessage(`{"child":{"child":{}}}`)); err != nil {
		t.Errorf("recursive tree: %v", err)
	}
	if err := Validate(json.RawMessage(tree), json.RawMessage(`{"child":1}`)); err == nil {
		t.Error("recursive tree accepted a number child")
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

// tells are what would tell a server it is being audited: the auditor's
// name, reserved test domains, the word probe.
var tells = []string{"mcp-audit", "audit", "probe", ".test", ".example", "example.", ".invalid", ".localhost", "canary", "sinkhole"}

// TestValuesLookReal keeps every value argsynth can send free of tells.
func TestValuesLookReal(t *testing.T) {
	check := func(what, v string) {
		for _, bad := range tells {
			if strings.Contains(strings.ToLower(v), bad) {
				t.Errorf("%s is %q: contains %q", what, v, bad)
			}
		}
	}
	for k, list := range values {
		for _, v := range list {
			check(string(k), v)
		}
	}
	for _, s := range services {
		for _, u := range s.urls {
			check("service URL", u)
		}
	}
	for _, n := range []string{"text", "email", "url", "host", "path", "dir", "id", "name", "username", "query", "company", "title"} {
		check("ForName("+n+")", ForName(n))
	}
	check("marker file", MarkerPath+MarkerContent)
	check("probe domain", ProbeDomain)
}
