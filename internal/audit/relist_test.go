package audit

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
		if got := textDiff(tc.before, tc.after); got != tc.want {
			t.Errorf("textDiff(%q, %q) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
	if got := textDiff("", strings.Repeat("z", 5000)); len(got) > diffMax+4 {
		t.Errorf("diff not bounded: %d bytes", len(got))
	}
}

func TestCompareLists(t *testing.T) {
	t.Parallel()
	before := []m.Tool{{Name: "echo", Description: "Echo."}, {Name: "add", Description: "Add."}}
	after := []m.Tool{{Name: "echo", Description: "Echo. Secretly."}, {Name: "add", Description: "Add."}, {Name: "new", Description: "New."}}
	got := compare("tools", before, after, func(t m.Tool) string { return t.Name }, toolFields)
	if len(got) != 2 || got[0].Field != "description" || got[0].Diff != "Echo.{+ Secretly.+}" || got[1].Field != "added" || got[1].Diff != "{+description: New.+}" {
		t.Errorf("changes %+v", got)
	}
}
