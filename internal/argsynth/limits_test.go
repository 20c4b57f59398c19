package argsynth

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHostileSchemas: schemas built to hang or bloat synthesis finish
// quickly with a bounded set. Without the bounds (maxRefHops, maxDepth,
// maxNodes, maxArray, maxOutBytes, maxAttempts, maxSchemaBytes) each of
// these loops forever or grows without limit.
func TestHostileSchemas(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 200) + `{"type":"string"}` + strings.Repeat(`},"required":["a"]}`, 200)
	var wide strings.Builder
	wide.WriteString(`{"type":"object","properties":{`)
	for i := range 5000 {
		fmt.Fprintf(&wide, `"p%d":{"type":"string","minLength":4000},`, i)
	}
	wide.WriteString(`"z":{"type":"string"}},"required":[`)
	for i := range 5000 {
		fmt.Fprintf(&wide, `"p%d",`, i)
	}
	wide.WriteString(`"z"]}`)
	// 20 nested oneOfs of 10 branches each, none satisfiable: 10^20
	// combinations in a schema of linear size.
	var defs strings.Builder
	defs.WriteString(`"l0":{"type":"string","maxLength":0,"minLength":1}`)
	for i := 1; i <= 20; i++ {
		alts := make([]string, 10)
		for j := range alts {
			alts[j] = fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i-1)
		}
		fmt.Fprintf(&defs, `,"l%d":{"oneOf":[%s]}`, i, strings.Join(alts, ","))
	}
	combinations := `{"$defs":{` + defs.String() + `},"type":"object","properties":{"v":{"$ref":"#/$defs/l20"}},"required":["v"]}`
	for name, schema := range map[string]string{
		"self ref":       `{"$ref":"#"}`,
		"ref cycle":      `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"required":["x"]}`,
		"required cycle": `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`,
		"allOf cycle":    `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#"}]}},"allOf":[{"$ref":"#/$defs/a"}]}`,
		"deep":           deep,
		"wide":           wide.String(),
		"combinations":   combinations,
		"huge minItems":  `{"type":"object","properties":{"xs":{"type":"array","minItems":1000000000,"items":{"type":"string","minLength":1000000000}}},"required":["xs"]}`,
		"huge repeat":    `{"type":"object","properties":{"s":{"type":"string","pattern":"^(a{1000}){1000}$"}},"required":["s"]}`,
		"huge numbers":   `{"type":"object","properties":{"n":{"type":"number","minimum":1e308,"multipleOf":1e-308}},"required":["n"]}`,
		"too large":      `{"type":"object","description":"` + strings.Repeat("x", maxSchemaBytes) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			sets := Plan(Tool{Name: "t", InputSchema: json.RawMessage(schema)}, nil)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
			if len(sets) > MaxSets {
				t.Errorf("%d sets", len(sets))
			}
			for _, s := range sets {
				if len(s.Args) > 4*maxOutBytes {
					t.Errorf("%s set is %d bytes", s.Reason, len(s.Args))
				}
				var v map[string]any
				if err := json.Unmarshal(s.Args, &v); err != nil {
					t.Errorf("%s set does not parse: %v", s.Reason, err)
				}
			}
		})
	}
}

// TestControlSchemaStillValid: the bounds do not cut an ordinary
// recursive schema short.
func TestControlSchemaStillValid(t *testing.T) {
	schema := `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"]}},"$ref":"#/$defs/node"}`
	sets := Plan(Tool{Name: "t", InputSchema: json.RawMessage(schema)}, nil)
	if len(sets) == 0 || !sets[0].Valid {
		t.Fatalf("recursive schema: %+v", sets)
	}
}

// TestTimeoutValue: a parameter named for a timeout gets five seconds in
// its unit, not the default pick of 1 (a 1 ms navigation timeout fails).
func TestTimeoutValue(t *testing.T) {
	for _, tc := range []struct {
		name, desc string
		want       float64
		ok         bool
	}{
		{"timeout_ms", "", 5000, true},
		{"navigationTimeout", "Maximum wait in milliseconds", 5000, true},
		{"timeout", "Timeout in seconds", 5, true},
		{"timeoutSecs", "", 5, true},
		{"timeout", "", 5000, true},
		{"time", "The time to wait in seconds", 0, false},
		{"limit", "", 0, false},
	} {
		got, ok := timeoutValue(tc.name, tc.desc)
		if got != tc.want || ok != tc.ok {
			t.Errorf("timeoutValue(%q, %q) = %v, %v; want %v, %v", tc.name, tc.desc, got, ok, tc.want, tc.ok)
		}
	}
	// Within bounds: a maximum below five seconds wins.
	got, _, err := Synthesize(json.RawMessage(`{"type":"object","properties":{"timeout":{"type":"integer","maximum":3000}},"required":["timeout"]}`))
	if err != nil || string(got) != `{"timeout":3000}` {
		t.Errorf("bounded timeout: %s, %v", got, err)
	}
}
