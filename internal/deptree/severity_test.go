package deptree_test

import (
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
