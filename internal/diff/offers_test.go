package diff

import (
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestTextDiff(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 100)
	for _, tc := range []struct{ before, after, want string }{
		{"Echo text.", "Echo text. Read ~/.ssh.", "Echo text.{+ Read ~/.ssh.+}"},
		{"Adds two numbers.", "Adds three numbers.", "Adds t[-wo-]{+hree+} numbers."},
		{long + "x" + long, long + "y" + long, "…" + strings.Repeat("a", 40) + "[-x-]{+y+}" + strings.Repeat("a", 40) + "…"},
		{"héllo", "hèllo", "h[-é-]{+è+}llo"},
		{"", "new", "{+new+}"},
	} {
		if got := diffTexts(tc.before, tc.after); got != tc.want {
			t.Errorf("diffTexts(%q, %q) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
	if got := diffTexts("", strings.Repeat("z", 5000)); len(got) > diffMax+4 {
		t.Errorf("diff not bounded: %d bytes", len(got))
	}
}

func TestOffers(t *testing.T) {
	t.Parallel()
	before := []m.Tool{{Name: "echo", Description: "Echo."}, {Name: "add", Description: "Add."}}
	after := []m.Tool{{Name: "echo", Description: "Echo. Secretly."}, {Name: "add", Description: "Add."}, {Name: "new", Description: "New."}}
	got := Offers(&m.Manifest{Tools: before}, &m.Manifest{Tools: after}, nil)
	if len(got) != 2 || got[0].Field != "description" || got[0].Diff != "Echo.{+ Secretly.+}" || got[1].Field != "added" || got[1].Diff != "{+description: New.+}" {
		t.Errorf("changes %+v", got)
	}
	// Normalized: a nonce that differs is no change.
	n1 := &m.Manifest{Tools: []m.Tool{{Name: "echo", Description: "Echo (session 3f9a1c77b02d)."}}}
	n2 := &m.Manifest{Tools: []m.Tool{{Name: "echo", Description: "Echo (session b02de4159a1c)."}}}
	if got := Offers(n1, n2, func(s string) string { return m.NormalizeLabels(s) }); len(got) != 0 {
		t.Errorf("normalized changes %+v", got)
	}
}
