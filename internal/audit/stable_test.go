package audit

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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

// TestIntersectEveryList runs every list of a phase through two runs: an
// entry both runs have stays (duplicates within a run count once), one
// only the first run has is dropped, one only the second has is only
// reported.
func TestIntersectEveryList(t *testing.T) {
	lists := []struct {
		kind string
		add  func(p *m.Phase, label string) any
	}{
		{"files", func(p *m.Phase, l string) any {
			v := m.FileAccess{Path: "/" + l, Access: m.AccessRead}
			p.Files = append(p.Files, v)
			return v
		}},
		{"file_summary", func(p *m.Phase, l string) any {
			v := m.FileCount{Category: l, Access: m.AccessRead}
			p.FileSummary = append(p.FileSummary, v)
			return v
		}},
		{"processes", func(p *m.Phase, l string) any {
			v := m.Process{Path: "/bin/" + l, Argv: []string{l}}
			p.Processes = append(p.Processes, v)
			return v
		}},
		{"network", func(p *m.Phase, l string) any {
			v := m.Connection{Proto: "tcp", Op: "connect", Name: l + ".example", Port: 443}
			p.Network = append(p.Network, v)
			return v
		}},
		{"dns", func(p *m.Phase, l string) any {
			v := m.DNSQuery{Name: l + ".example", Type: "A"}
			p.DNS = append(p.DNS, v)
			return v
		}},
		{"requests", func(p *m.Phase, l string) any {
			v := m.Request{Scheme: "https", Name: l + ".example", Port: 443}
			p.Requests = append(p.Requests, v)
			return v
		}},
		{"canaries", func(p *m.Phase, l string) any {
			v := m.CanaryHit{Canary: "env:" + l, How: "sent"}
			p.Canaries = append(p.Canaries, v)
			return v
		}},
		{"alerts", func(p *m.Phase, l string) any {
			v := m.Alert{Kind: l, Detail: l}
			p.Alerts = append(p.Alerts, v)
			return v
		}},
		{"server_requests", func(p *m.Phase, l string) any {
			v := m.ServerRequest{Method: l, Answer: "declined"}
			p.ServerRequests = append(p.ServerRequests, v)
			return v
		}},
	}
	for _, l := range lists {
		t.Run(l.kind, func(t *testing.T) {
			first, second, want := m.Phase{Name: "startup"}, m.Phase{Name: "startup"}, m.Phase{Name: "startup"}
			l.add(&first, "both")
			l.add(&first, "both")
			flaky := l.add(&first, "flaky")
			l.add(&second, "both")
			late := l.add(&second, "late")
			l.add(&want, "both")
			l.add(&want, "both")
			phases, unstable := intersect([]*m.Manifest{{Phases: []m.Phase{first}}, {Phases: []m.Phase{second}}})
			if diff := cmp.Diff([]m.Phase{want}, phases, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("phases (-want +got):\n%s", diff)
			}
			wantUnstable := []string{note(t, "startup", l.kind, flaky), note(t, "startup", l.kind, late)}
			slices.Sort(wantUnstable)
			if diff := cmp.Diff(wantUnstable, unstable); diff != "" {
				t.Errorf("unstable (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIntersectPhaseOfLaterRun: a phase only a later run has is reported,
// not kept.
func TestIntersectPhaseOfLaterRun(t *testing.T) {
	dns := []m.DNSQuery{{Name: "api.example", Type: "A"}}
	phases, unstable := intersect([]*m.Manifest{
		{Phases: []m.Phase{{Name: "startup", DNS: dns}}},
		{Phases: []m.Phase{{Name: "startup", DNS: dns}, {Name: "idle", DNS: dns}}},
	})
	if diff := cmp.Diff([]m.Phase{{Name: "startup", DNS: dns}}, phases, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{note(t, "idle", "dns", dns[0])}, unstable); diff != "" {
		t.Errorf("unstable (-want +got):\n%s", diff)
	}
}

// note is how intersect reports an entry one of two runs had.
func note(t *testing.T, phase, kind string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return phase + " " + kind + " in 1 of 2 runs: " + string(b)
}
