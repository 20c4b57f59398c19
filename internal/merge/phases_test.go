package merge

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
	t.Parallel()
	run := func(extra ...m.DNSQuery) *m.Manifest {
		return &m.Manifest{Phases: []m.Phase{{Name: "call:echo", DNS: append([]m.DNSQuery{{Name: "api.example", Type: "A"}}, extra...)}}}
	}
	st := intersect([]*m.Manifest{
		run(m.DNSQuery{Name: "flaky.example", Type: "A"}),
		run(),
		run(m.DNSQuery{Name: "late.example", Type: "A"}),
	})
	phases := st.phases
	if len(phases) != 1 || len(phases[0].DNS) != 1 || phases[0].DNS[0].Name != "api.example" {
		t.Fatalf("phases %+v", phases)
	}
	got := strings.Join(st.dropped, "\n")
	for _, want := range []string{"call:echo dns in 1 of 3 runs: {\"name\":\"flaky.example\"", "call:echo dns in 1 of 3 runs: {\"name\":\"late.example\""} {
		if !strings.Contains(got, want) {
			t.Errorf("unstable %q lacks %q", got, want)
		}
	}
}

// TestIntersectEveryList runs every list of a call's phase through two
// runs: an entry both runs have stays (duplicates within a run count
// once); one only some run has is dropped and reported when the policy
// finds nothing in it, and kept and reported when it carries a finding
// (harm: a canary, an alert).
func TestIntersectEveryList(t *testing.T) {
	t.Parallel()
	lists := []struct {
		kind    string
		add     func(p *m.Phase, label string) any
		harmful bool
	}{
		{"files", func(p *m.Phase, l string) any {
			v := m.FileAccess{Path: "/" + l, Access: m.AccessRead}
			p.Files = append(p.Files, v)
			return v
		}, false},
		{"file_summary", func(p *m.Phase, l string) any {
			v := m.FileCount{Category: l, Access: m.AccessRead}
			p.FileSummary = append(p.FileSummary, v)
			return v
		}, false},
		{"processes", func(p *m.Phase, l string) any {
			v := m.Process{Path: "/bin/" + l, Argv: []string{l}}
			p.Processes = append(p.Processes, v)
			return v
		}, false},
		{"network", func(p *m.Phase, l string) any {
			v := m.Connection{Proto: "tcp", Op: "connect", Name: l + ".example", Port: 443}
			p.Network = append(p.Network, v)
			return v
		}, false},
		{"dns", func(p *m.Phase, l string) any {
			v := m.DNSQuery{Name: l + ".example", Type: "A"}
			p.DNS = append(p.DNS, v)
			return v
		}, false},
		{"requests", func(p *m.Phase, l string) any {
			v := m.Request{Scheme: "https", Name: l + ".example", Port: 443}
			p.Requests = append(p.Requests, v)
			return v
		}, false},
		{"canaries", func(p *m.Phase, l string) any {
			v := m.CanaryHit{Canary: "env:" + l, How: "sent"}
			p.Canaries = append(p.Canaries, v)
			return v
		}, true},
		{"alerts", func(p *m.Phase, l string) any {
			v := m.Alert{Kind: l, Detail: l}
			p.Alerts = append(p.Alerts, v)
			return v
		}, true},
		{"server_requests", func(p *m.Phase, l string) any {
			v := m.ServerRequest{Method: l, Answer: "declined"}
			p.ServerRequests = append(p.ServerRequests, v)
			return v
		}, false},
	}
	for _, l := range lists {
		t.Run(l.kind, func(t *testing.T) {
			const ph = "call:echo"
			first, second, want := m.Phase{Name: ph}, m.Phase{Name: ph}, m.Phase{Name: ph}
			l.add(&first, "both")
			l.add(&first, "both")
			flaky := l.add(&first, "flaky")
			l.add(&second, "both")
			late := l.add(&second, "late")
			l.add(&want, "both")
			l.add(&want, "both")
			if l.harmful {
				l.add(&want, "flaky")
				l.add(&want, "late")
			}
			st := intersect([]*m.Manifest{{Phases: []m.Phase{first}}, {Phases: []m.Phase{second}}})
			if diff := cmp.Diff([]m.Phase{want}, st.phases, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("phases (-want +got):\n%s", diff)
			}
			wantUnstable := []string{note(t, ph, l.kind, flaky), note(t, ph, l.kind, late)}
			slices.Sort(wantUnstable)
			got, other := st.dropped, st.kept
			if l.harmful {
				got, other = st.kept, st.dropped
			}
			if diff := cmp.Diff(wantUnstable, got); diff != "" {
				t.Errorf("unstable (-want +got):\n%s", diff)
			}
			if len(other) > 0 {
				t.Errorf("also listed as the other kind: %q", other)
			}
		})
	}
}

// TestIntersectPhaseOfLaterRun: a phase only a later run has is reported;
// it is kept only when what it holds carries a finding (a host looked up
// unprompted while idle is telemetry, medium; one looked up during a
// second call is low).
func TestIntersectPhaseOfLaterRun(t *testing.T) {
	t.Parallel()
	dns := []m.DNSQuery{{Name: "api.example", Type: "A"}}
	for _, tc := range []struct {
		phase string
		kept  bool
	}{{"call:echo#2", false}, {"idle", true}} {
		st := intersect([]*m.Manifest{
			{Phases: []m.Phase{{Name: "startup", DNS: dns}}},
			{Phases: []m.Phase{{Name: "startup", DNS: dns}, {Name: tc.phase, DNS: dns}}},
		})
		want, listed, other := []m.Phase{{Name: "startup", DNS: dns}}, st.dropped, st.kept
		if tc.kept {
			want, listed, other = append(want, m.Phase{Name: tc.phase, DNS: dns}), st.kept, st.dropped
		}
		if diff := cmp.Diff(want, st.phases, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: phases (-want +got):\n%s", tc.phase, diff)
		}
		if diff := cmp.Diff([]string{note(t, tc.phase, "dns", dns[0])}, listed); diff != "" || len(other) > 0 {
			t.Errorf("%s: unstable (-want +got):\n%s\nother: %q", tc.phase, diff, other)
		}
	}
}

// TestIntersectRandomLabels: a theft to a new random host each run is
// neither averaged away nor unstable. Hex and uuid-like labels compare
// equal, so both the theft and a benign random CDN name are stable (the
// first run's name is kept); a random word that the normalization does
// not recognize is kept all the same when it carries the canary.
func TestIntersectRandomLabels(t *testing.T) {
	t.Parallel()
	run := func(hexHost, wordHost string) *m.Manifest {
		return &m.Manifest{Phases: []m.Phase{{Name: "startup",
			DNS:      []m.DNSQuery{{Name: hexHost + ".exfil.example", Type: "A"}, {Name: "cdn-" + hexHost + ".cdn.example", Type: "A"}},
			Canaries: []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowSent, Evidence: "POST https://" + wordHost + ".example/"}},
		}}}
	}
	st := intersect([]*m.Manifest{
		run("3f9a1c77e0", "amber-falcon"),
		run("b02de415c9", "quiet-harbor"),
	})
	if len(st.phases) != 1 {
		t.Fatalf("phases %+v", st.phases)
	}
	p := st.phases[0]
	if len(p.DNS) != 2 || p.DNS[0].Name != "3f9a1c77e0.exfil.example" {
		t.Errorf("dns %+v: want both names of the first run", p.DNS)
	}
	if len(p.Canaries) != 2 {
		t.Errorf("canaries %+v: want both runs' hits", p.Canaries)
	}
	if len(st.dropped) != 0 || len(st.kept) != 2 {
		t.Errorf("dropped %q, kept %q: want the two hits kept", st.dropped, st.kept)
	}
}

func TestNormalizeKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"name":"3f9a1c77.cdn.example"}`:                      `{"name":"<hex>.cdn.example"}`,
		`{"name":"deadbeef.cdn.example"}`:                      `{"name":"deadbeef.cdn.example"}`, // no digit: a word
		`{"path":"/tmp/0b7c2a3e-4f1d-4c2b-9a8e-1f2e3d4c5b6a"}`: `{"path":"/tmp/<uuid>"}`,
		`{"name":"k3j5h6g7f8d9s0a1q2w3.example","port":443}`:   `{"name":"<token>.example","port":443}`,
		`{"name":"api.example","port":8443}`:                   `{"name":"api.example","port":8443}`,
	} {
		if got := m.NormalizeLabels(in); got != want {
			t.Errorf("NormalizeLabels(%s) = %s, want %s", in, got, want)
		}
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
