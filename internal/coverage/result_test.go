package coverage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadResult(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Result
	}{
		{`{"content":[{"type":"text","text":"ok"},{"type":"image"},{"type":"text","text":"more"}]}`, Result{Content: []string{"image", "text"}}},
		{`{"isError":true,"content":[{"type":"text","text":"\n upstream down\nretry"}]}`, Result{Content: []string{"text"}, Failed: true, First: "upstream down", Text: "\n upstream down\nretry"}},
		{`{"content":[{"type":"text","text":"Error: ECONNREFUSED"}]}`, Result{Content: []string{"text"}, Failed: true, First: "Error: ECONNREFUSED", Text: "Error: ECONNREFUSED"}},
		{`{"isError":true,"content":[{"type":"text","text":"### Error\n\nError: Ref #main not found in the current page snapshot."}]}`, Result{Content: []string{"text"}, Failed: true, First: "### Error Error: Ref #main not found in the current page snapshot.", Text: "### Error\n\nError: Ref #main not found in the current page snapshot."}},
		{`{"messages":[{"content":{"type":"text"}}]}`, Result{Content: []string{"text"}}},
		{`{"contents":[{"text":"a"},{"blob":"AA=="}]}`, Result{Content: []string{"blob", "text"}}},
		{`not json`, Result{}},
	} {
		if d := cmp.Diff(tc.want, ReadResult([]byte(tc.raw))); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.raw, d)
		}
	}
}

func FuzzReadResult(f *testing.F) {
	f.Add(`{"isError":true,"content":[{"type":"text","text":"x"}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		if r := ReadResult([]byte(raw)); len(r.Content) > 10 {
			t.Fatal("unbounded")
		}
	})
}
