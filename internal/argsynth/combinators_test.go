package argsynth

import (
	"encoding/json"
	"testing"
)

// TestCombinators: each combinator, reference and constraint gives a set
// that validates, and the set is the one a user would pick (the first
// satisfiable branch, the tightest bound).
func TestCombinators(t *testing.T) {
	for name, tc := range map[string]struct{ schema, want string }{
		"oneOf first satisfiable": {`{"type":"object","properties":{"v":{"oneOf":[{"type":"string","maxLength":0,"minLength":1},{"type":"integer","minimum":3}]}},"required":["v"]}`,
			`{"v":3}`},
		// "a" satisfies both branches, which oneOf forbids: the value
		// avoids the other branch's const.
		"oneOf exclusive": {`{"type":"object","properties":{"m":{"oneOf":[{"const":"a"},{"enum":["a","b"]}]}},"required":["m"]}`,
			`{"m":"b"}`},
		// Filling optional parameters must not satisfy the other branch.
		"oneOf exclusive required": {`{"type":"object","properties":{"url":{"type":"string"},"text":{"type":"string"}},"oneOf":[{"required":["url"]},{"required":["text"]}]}`,
			`{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"oneOf objects": {`{"type":"object","oneOf":[{"properties":{"url":{"type":"string","format":"uri"}},"required":["url"]},{"properties":{"text":{"type":"string"}},"required":["text"]}]}`,
			`{"url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"anyOf skips null": {`{"type":"object","properties":{"n":{"anyOf":[{"type":"null"},{"type":"integer","minimum":10}]}},"required":["n"]}`,
			`{"n":10}`},
		"allOf merges": {`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":2}},"required":["b"]}]}`,
			`{"a":"Quarterly report","b":2}`},
		"allOf tightest bound": {`{"type":"object","properties":{"n":{"allOf":[{"type":"integer","minimum":2},{"minimum":5,"maximum":7}]}},"required":["n"]}`,
			`{"n":5}`},
		"if then": {`{"type":"object","properties":{"kind":{"enum":["file","url"]}},"required":["kind"],"if":{"properties":{"kind":{"const":"file"}}},"then":{"properties":{"path":{"type":"string"}},"required":["path"]},"else":{"properties":{"url":{"type":"string"}},"required":["url"]}}`,
			`{"kind":"file","path":"/home/dev/workspace/README.md"}`},
		"if else": {`{"type":"object","properties":{"kind":{"const":"url"}},"required":["kind"],"if":{"properties":{"kind":{"const":"file"}},"required":["kind"]},"then":{"required":["path"]},"else":{"properties":{"url":{"type":"string","format":"uri"}},"required":["url"]}}`,
			`{"kind":"url","url":"https://www.brightwater-logistics.com/reports/q3-summary"}`},
		"dependentRequired": {`{"type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"}},"required":["card"],"dependentRequired":{"card":["billing"]}}`,
			`{"billing":"Shipment schedule for November","card":"Quarterly report"}`},
		"dependentSchemas": {`{"type":"object","properties":{"card":{"type":"string"}},"required":["card"],"dependentSchemas":{"card":{"properties":{"cvc":{"type":"string","pattern":"^[0-9]{3}$"}},"required":["cvc"]}}}`,
			`{"card":"Quarterly report","cvc":"000"}`},
		"draft-07 dependencies": {`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"dependencies":{"a":["b"]}}`,
			`{"a":"Quarterly report","b":"Shipment schedule for November"}`},
		"not enum": {`{"type":"object","properties":{"m":{"enum":["none","fast","slow"],"not":{"const":"none"}}},"required":["m"]}`,
			`{"m":"fast"}`},
		"not required": {`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":1,"not":{"required":["a"]}}`,
			`{"b":"Quarterly report"}`},
		"defs ref": {`{"type":"object","$defs":{"p":{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}},"properties":{"person":{"$ref":"#/$defs/p"}},"required":["person"]}`,
			`{"person":{"email":"maria.lindqvist@brightwater-logistics.com"}}`},
		"definitions ref": {`{"type":"object","definitions":{"n":{"type":"integer","minimum":4}},"properties":{"n":{"$ref":"#/definitions/n"}},"required":["n"]}`,
			`{"n":4}`},
		"pointer ref": {`{"type":"object","properties":{"a":{"type":"string","format":"date"},"b":{"$ref":"#/properties/a"}},"required":["a","b"]}`,
			`{"a":"2026-01-15","b":"2026-02-01"}`},
		"recursive ref": {`{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`,
			`{"root":{"name":"Maria Lindqvist"}}`},
		"formats": {`{"type":"object","properties":{"a":{"type":"string","format":"uuid"},"b":{"type":"string","format":"ipv4"},"c":{"type":"string","format":"time"},"d":{"type":"string","format":"hostname"},"e":{"type":"string","format":"date-time"}},"required":["a","b","c","d","e"]}`,
			`{"a":"3f2b8c1e-7d4a-4e9b-9c2f-5a1d6e8b0c47","b":"192.0.2.10","c":"09:30:00Z","d":"files.brightwater-logistics.com","e":"2026-01-15T09:30:00Z"}`},
		"bounds": {`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9},"x":{"type":"number","exclusiveMinimum":0,"maximum":0.5},"k":{"type":"integer","exclusiveMaximum":0}},"required":["n","x","k"]}`,
			`{"k":-1,"n":5,"x":0.5}`},
		"multipleOf": {`{"type":"object","properties":{"n":{"type":"integer","minimum":3,"multipleOf":4}},"required":["n"]}`,
			`{"n":4}`},
		"default": {`{"type":"object","properties":{"n":{"type":"integer","default":400,"maximum":250}},"required":["n"]}`,
			`{"n":250}`},
		"lengths": {`{"type":"object","properties":{"s":{"type":"string","minLength":20},"t":{"type":"string","maxLength":3}},"required":["s","t"]}`,
			`{"s":"Quarterly report Shipment schedule for November","t":"Qua"}`},
		"items": {`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":3,"uniqueItems":true}},"required":["tags"]}`,
			`{"tags":["Quarterly report","Shipment schedule for November"]}`},
		"prefixItems": {`{"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string","format":"email"}],"minItems":2}},"required":["pair"]}`,
			`{"pair":[1,"maria.lindqvist@brightwater-logistics.com"]}`},
		"contains": {`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"string"},"contains":{"const":"admin"}}},"required":["xs"]}`,
			`{"xs":["admin"]}`},
		"maxItems zero": {`{"type":"object","properties":{"xs":{"type":"array","maxItems":0}},"required":["xs"]}`,
			`{"xs":[]}`},
		"const and enum": {`{"type":"object","properties":{"v":{"const":2},"m":{"enum":[null,"fast"]}},"required":["v","m"]}`,
			`{"m":"fast","v":2}`},
		"nullable type list": {`{"type":"object","properties":{"s":{"type":["null","string"],"format":"email"}},"required":["s"]}`,
			`{"s":"maria.lindqvist@brightwater-logistics.com"}`},
	} {
		t.Run(name, func(t *testing.T) {
			got, valid, err := Synthesize(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !valid {
				t.Errorf("does not validate: %v", Validate(json.RawMessage(tc.schema), got))
			}
		})
	}
}
