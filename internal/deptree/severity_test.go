package deptree_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestSeverityIsPolicys: the caller converts with policy.Severity(s), so
// the order and names must be policy's.
func TestSeverityIsPolicys(t *testing.T) {
	for s := deptree.Info; s <= deptree.Critical; s++ {
		if got, want := policy.Severity(s).String(), s.String(); got != want {
			t.Errorf("severity %d is %q here and %q in policy", s, want, got)
		}
	}
	if policy.Severity(deptree.Critical) != policy.Critical || policy.Severity(deptree.Info) != policy.Info {
		t.Error("the ends of the scale differ from policy's")
	}
}

func TestSeverityRoundTrip(t *testing.T) {
	in := []deptree.Change{{Op: deptree.Added, Kind: deptree.ChangeHook, Subject: "x.pth", Severity: deptree.High}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"severity":"high"`) {
		t.Errorf("encoded %s", b)
	}
	var out []deptree.Change
	if err := json.Unmarshal(b, &out); err != nil || out[0] != in[0] {
		t.Errorf("round trip: %v, %+v", err, out)
	}
	if err := json.Unmarshal([]byte(`[{"severity":"dire"}]`), &out); err == nil {
		t.Error("an unknown severity decoded")
	}
}
