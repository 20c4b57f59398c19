package argsynth

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCorrectStudyMessages: the error messages real servers returned in
// the study, with the arguments that caused them and the tools' real
// schemas. Each message that names an argument problem gets the fix it
// asks for; every other failing call with a message gets none (a failed
// API answer, a missing browser, a lost database connection).
func TestCorrectStudyMessages(t *testing.T) {
	want := map[string]string{
		"get_transcript":        `{"lang":"mcp-audit probe","url":"https://www.youtube.com/watch?v=Qx3vF8tLm2E"}`,
		"resource-prompt":       `{"resourceId":"mcp-audit probe","resourceType":"Text"}`,
		"delete_glossary_entry": `{"guid":"3f2b8c1e-7d4a-4e9b-9c2f-5a1d6e8b0c47","id":"gls_0"}`,
		"firecrawl_scrape":      `{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`,
		"firecrawl_feedback":    `{"endpoint":"search","jobId":"3f2b8c1e-7d4a-4e9b-9c2f-5a1d6e8b0c47","rating":"good"}`,
		"firecrawl_interact":    `{"code":"print('Quarterly report ready')","url":"https://www.brightwater-logistics.com/reports/q3-summary"}`,
		"kubectl_apply":         `{"manifest":` + quote(yamlManifest) + `}`,
		"kubectl_create":        `{"manifest":` + quote(yamlManifest) + `}`,
		"kubectl_delete":        `{"resourceType":"Quarterly report"}`,
		"kubectl_patch":         `{"name":"mcp-audit probe","patchFile":"/home/dev/workspace/README.md","resourceType":"mcp-audit probe"}`,
	}
	got := map[string]string{}
	failing := 0
	for _, s := range loadStudy(t) {
		tools := map[string]Tool{}
		for _, tool := range s.tools {
			tools[tool.Name] = tool
		}
		for _, c := range s.calls {
			if c.Outcome == "ok" || c.Detail == "" || strings.HasSuffix(c.Phase, "#2") {
				continue
			}
			failing++
			tool := tools[c.Name]
			if c.Kind != "tool" {
				tool = Tool{Name: c.Name} // a prompt: its arguments are its schema
			}
			fixed, ok := Correct(tool, Set{Args: c.Args, Valid: true}, c.Detail)
			if !ok {
				continue
			}
			got[c.Name] = string(fixed.Args)
			if fixed.Reason != ReasonRetry {
				t.Errorf("%s: reason %s", c.Name, fixed.Reason)
			}
			var v map[string]any
			if err := json.Unmarshal(fixed.Args, &v); err != nil {
				t.Errorf("%s: proposal does not parse: %v", c.Name, err)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("corrections -want +got\n%s", diff)
	}
	t.Logf("%d of %d failing first calls with a message get a corrected retry", len(got), failing)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCorrectMessages: the styles of the validation libraries servers use.
func TestCorrectMessages(t *testing.T) {
	schema := obj(`"count":{"type":"integer"},"mode":{"enum":["fast","slow","safe"]},"url":{"type":"string"},"text":{"type":"string"},"since":{"type":"string"},"filters":{"type":"object","properties":{"date":{"type":"string"}}}`)
	tool := Tool{Name: "search", InputSchema: schema}
	for name, tc := range map[string]struct{ sent, msg, want string }{
		"zod json type": {`{"count":"5"}`, `Invalid arguments: [{"code":"invalid_type","expected":"number","received":"string","path":["count"],"message":"Expected number, received string"}]`,
			`{"count":1}`},
		"zod json missing nested": {`{}`, `[{"code":"invalid_type","expected":"string","received":"undefined","path":["filters","date"],"message":"Required"}]`,
			`{"filters":{"date":"2026-01-15"}}`},
		"zod text type":  {`{"count":"5"}`, `Expected number, received string at 'count'`, `{"count":1}`},
		"zod enum":       {`{"mode":"quick"}`, `Invalid enum value. Expected 'fast' | 'slow' | 'safe', received 'quick'`, `{"mode":"fast"}`},
		"zod enum taken": {`{"mode":"fast","text":"x"}`, `mode: Invalid enum value. Expected 'fast' | 'slow', received 'fast'`, `{"mode":"slow","text":"x"}`},
		"zod v4 option":  {`{"mode":"quick"}`, `[{"code":"invalid_value","values":["slow","safe"],"path":["mode"],"message":"Invalid option"}]`, `{"mode":"slow"}`},
		"zod unknown":    {`{"text":"x","extra":1}`, `[{"code":"unrecognized_keys","keys":["extra"],"path":[],"message":"Unrecognized key(s) in object: 'extra'"}]`, `{"text":"x"}`},
		"pydantic": {`{"count":"x"}`, "2 validation errors for SearchArgs\ncount\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]\nurl\n  Field required [type=missing, input_value={'count': 'x'}, input_type=dict]",
			`{"count":1,"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"pydantic literal":    {`{"mode":"quick"}`, "1 validation error for Args\nmode\n  Input should be 'fast', 'slow' or 'safe' [type=literal_error, input_value='quick', input_type=str]", `{"mode":"fast"}`},
		"ajv required":        {`{}`, `data must have required property 'url'`, `{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"ajv type":            {`{"count":"5"}`, `data/count must be integer`, `{"count":1}`},
		"ajv enum":            {`{"mode":"quick"}`, `/mode must be equal to one of the allowed values`, `{"mode":"fast"}`},
		"one of":              {`{}`, `Provide exactly one of url or text`, `{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"one of, in capitals": {`{}`, `Error: Either URL or a text is required.`, `{"text":"Quarterly report","url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"not both":            {`{"url":"u","text":"t"}`, `Provide either 'url' or 'text', not both.`, `{"url":"u"}`},
		"video in url":        {`{"url":"48213"}`, `video id must be inside a URL`, `{"url":"https://www.youtube.com/watch?v=Qx3vF8tLm2E"}`},
		"bad url value":       {`{"url":"docs"}`, `Invalid URL: docs`, `{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"missing sentence":    {`{}`, `Missing required parameter: since`, `{"since":"2026-01-15"}`},
	} {
		t.Run(name, func(t *testing.T) {
			fixed, ok := Correct(tool, Set{Args: json.RawMessage(tc.sent)}, tc.msg)
			if !ok || string(fixed.Args) != tc.want {
				t.Errorf("got %s (%v), want %s; issues %+v", fixed.Args, ok, tc.want, ParseError(tc.msg))
			}
		})
	}
}

// TestCorrectNone: messages that name no fixable argument problem, and
// fixes that would break a set that validated, propose nothing.
func TestCorrectNone(t *testing.T) {
	tool := Tool{Name: "create_file", InputSchema: obj(`"content":{"type":"string"},"path":{"type":"string"}`, "content", "path")}
	sent := Set{Args: json.RawMessage(`{"content":"x","path":"/home/dev/workspace/a.md"}`), Valid: true}
	for _, msg := range []string{
		// The API answer the server parsed, not its arguments: content is a
		// parameter, but an object would break the schema.
		`Invalid input: [{"code":"invalid_type","expected":"object","received":"string","path":["content"],"message":"Expected object"}]`,
		`Invalid input: [{"code":"invalid_type","expected":"number","received":"undefined","path":["total_count"],"message":"Required"}]`,
		`Invalid input: [{"code":"invalid_type","expected":"array","received":"object","path":[],"message":"Expected array, received object"}]`,
		"Could not find Chrome (ver. 131.0.6778.204).",
		"Failed to connect to database: Connection lost: The server closed the connection.",
		"Cannot read properties of undefined (reading 'forEach')",
		"spawnSync kubectl ENOENT",
		"Port-forward with id 48213 not found",
		"",
	} {
		if fixed, ok := Correct(tool, sent, msg); ok {
			t.Errorf("%q: proposed %s", msg, fixed.Args)
		}
	}
}
