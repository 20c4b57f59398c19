package diff

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestAnnotationFlips: a tool whose annotations now claim less safety
// (read-only to not, closed to open, non-destructive to destructive,
// also by dropping a hint whose default is the unsafe one) is a medium
// finding; a flip towards safety, and a new tool, are not.
func TestAnnotationFlips(t *testing.T) {
	for _, tc := range []struct {
		name, before, after string
		want                []string
	}{
		{"read-only to not", `{"readOnlyHint":true}`, `{"readOnlyHint":false}`, []string{"tool t readOnlyHint"}},
		{"read-only hint dropped", `{"readOnlyHint":true}`, ``, []string{"tool t readOnlyHint"}},
		{"closed to open", `{"openWorldHint":false}`, `{"openWorldHint":true}`, []string{"tool t openWorldHint"}},
		{"non-destructive to destructive", `{"readOnlyHint":false,"destructiveHint":false}`, `{"readOnlyHint":false,"destructiveHint":true}`,
			[]string{"tool t destructiveHint"}},
		{"towards safety", `{"readOnlyHint":false}`, `{"readOnlyHint":true,"openWorldHint":false}`, nil},
		{"unchanged", `{"readOnlyHint":true}`, `{"readOnlyHint":true,"title":"T"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := base(), base()
			old.Tools = []m.Tool{{Name: "t", Annotations: json.RawMessage(tc.before)}}
			new.Tools = []m.Tool{{Name: "t", Annotations: json.RawMessage(tc.after)}, {Name: "added", Annotations: json.RawMessage(`{"readOnlyHint":false}`)}}
			var got []string
			for _, f := range Compare(old, new, policy.Policy{FailOn: policy.High}).Findings {
				if f.Kind == KindAnnotation {
					if f.Severity < policy.Medium {
						t.Errorf("%+v below medium", f)
					}
					got = append(got, f.Subject)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
