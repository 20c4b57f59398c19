package audit

import (
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestIntersectKeepsWhatEveryRunDid(t *testing.T) {
	run := func(extra ...m.DNSQuery) *m.Manifest {
		return &m.Manifest{Phases: []m.Phase{{Name: "startup", DNS: append([]m.DNSQuery{{Name: "api.example", Type: "A"}}, extra...)}}}
	}
	phases, unstable := intersect([]*m.Manifest{
		run(m.DNSQuery{Name: "flaky.example", Type: "A"}),
		run(),
		run(m.DNSQuery{Name: "late.example", Type: "A"}),
	})
	if len(phases) != 1 || len(phases[0].DNS) != 1 || phases[0].DNS[0].Name != "api.example" {
		t.Fatalf("phases %+v", phases)
	}
	got := strings.Join(unstable, "\n")
	for _, want := range []string{"startup dns in 1 of 3 runs: {\"name\":\"flaky.example\"", "startup dns in 1 of 3 runs: {\"name\":\"late.example\""} {
		if !strings.Contains(got, want) {
			t.Errorf("unstable %q lacks %q", got, want)
		}
	}
}
