package argsynth_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
)

// The scheduler's loop: tools in role order, one pass per reason, each
// result added to the pool, one corrected retry for an error that names
// an argument, the recorded form in the manifest.
func Example() {
	tools := argsynth.Order([]argsynth.Tool{
		{Name: "open_nodes", InputSchema: json.RawMessage(`{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"description":"Entity names"}},"required":["names"]}`)},
		{Name: "create_entities", InputSchema: json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},"required":["entities"]}`)},
	})
	pool := argsynth.NewPool(func(v string) bool { return strings.Contains(v, "sk-") }) // the canary finder
	// server stands in for the MCP call: the memory server makes up an id.
	server := func(tool string, args json.RawMessage) (json.RawMessage, string) {
		if tool == "create_entities" {
			return json.RawMessage(`{"content":[{"type":"text","text":"[{\"name\":\"Ada Byron\",\"id\":\"e-93f1\"}]"}]}`), ""
		}
		if !strings.Contains(string(args), "Ada Byron") {
			return nil, "Invalid input: names must name an entity"
		}
		return json.RawMessage(`{"content":[]}`), ""
	}
	for _, r := range argsynth.Reasons[:1] {
		for _, t := range tools {
			set, ok := argsynth.PlanSet(t, r, pool)
			if !ok {
				continue
			}
			phase := "call:" + t.Name
			result, errText := server(t.Name, set.Args)
			fmt.Printf("%s %s sent %s recorded %s\n", phase, set.Reason, set.Args, set.Recorded())
			if errText != "" {
				if fixed, ok := argsynth.Correct(t, set, errText); ok {
					fmt.Printf("%s retry %s\n", phase, fixed.Args)
				}
				continue
			}
			pool.Add(phase, t.Name, result)
		}
	}
	// Output:
	// call:create_entities required sent {"entities":[{"name":"Maria Lindqvist"}]} recorded {"entities":[{"name":"Maria Lindqvist"}]}
	// call:open_nodes required sent {"names":["Ada Byron"]} recorded {"names":[{"$ref_call":"call:create_entities","field":"content[0].text[0].name"}]}
}
