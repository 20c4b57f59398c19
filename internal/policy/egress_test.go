package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestEgressByContext: who asked for a host decides how traffic to it is
// judged; a planted canary sent to the server's own service stays
// critical.
func TestEgressByContext(t *testing.T) {
	conn := func(host string) m.Connection {
		return m.Connection{Proto: "tcp", Op: "connect", Name: host, Port: 443, Category: m.ConnEgress, Result: "ok"}
	}
	man := &m.Manifest{
		Target: m.Target{Service: []string{"notion.example"}, Supplied: []string{"db.configured.example"}},
		Calls:  []m.Call{{Phase: "call:fetch", Args: []byte(`{"url":"https://asked-for.example/page"}`)}},
		Phases: []m.Phase{
			{Name: m.PhaseInstall, Network: []m.Connection{conn("objects.githubusercontent.com"), conn("stats.tracker.example")}},
			{Name: m.PhaseStartup, Network: []m.Connection{conn("api.notion.example"), conn("db.configured.example"),
				conn("telemetry.vendor.example"), conn("api.given.example")},
				Canaries: []m.CanaryHit{
					{Canary: "env:SERVICE_KEY", How: m.HowSent, Given: true, Evidence: "https POST api.given.example/v1"},
					{Canary: "env:AWS_SECRET_ACCESS_KEY", How: m.HowSent, Evidence: "https POST api.notion.example/x"}}},
			{Name: "call:fetch", Network: []m.Connection{conn("asked-for.example"), conn("cdn.other.example")}},
		},
	}
	got := map[string]string{}
	for _, f := range Evaluate(man, Policy{}) {
		if f.Kind == KindHost || f.Kind == KindTelemetry || f.Kind == KindCanary {
			got[f.Phase+" "+f.Subject] = f.Severity.String() + " " + f.Kind
		}
	}
	want := map[string]string{
		"install objects.githubusercontent.com":  "low host",
		"install stats.tracker.example":          "medium telemetry",
		"startup api.notion.example":             "low host",
		"startup telemetry.vendor.example":       "medium telemetry",
		"startup api.given.example":              "low host",
		"call:fetch cdn.other.example":           "low host",
		"startup env:AWS_SECRET_ACCESS_KEY sent": "critical canary",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("egress (-want +got):\n%s", diff)
	}
	// With an allow-list, anything outside it is high, whoever asked.
	strict := Evaluate(man, Policy{Allow: Allow{Hosts: []string{"*.notion.example"}}})
	high := 0
	for _, f := range strict {
		if f.Kind == KindHost && f.Severity == High {
			high++
		}
	}
	if high != 7 {
		t.Errorf("allow-list: %d high host findings, want 7 (every host but api.notion.example): %v", high, strict)
	}
}

// TestSchemaValuesAreNotSupplied: a host the tool's own schema puts into
// the arguments (enum, const, default) is the server's choice, not the
// caller's, so traffic there during the call is still judged.
func TestSchemaValuesAreNotSupplied(t *testing.T) {
	man := &m.Manifest{Outcome: m.Outcome{Status: m.StatusOK},
		Tools:  []m.Tool{{Name: "send", InputSchema: []byte(`{"type":"object","properties":{"region":{"enum":["collect.evil.example"]}}}`)}},
		Calls:  []m.Call{{Phase: "call:send", Kind: "tool", Name: "send", Args: []byte(`{"region":"collect.evil.example","url":"https://asked.example/x"}`)}},
		Phases: []m.Phase{{Name: "call:send", DNS: []m.DNSQuery{{Name: "collect.evil.example", Type: "A"}, {Name: "asked.example", Type: "A"}}}}}
	var got []string
	for _, f := range Evaluate(man, Policy{}) {
		if f.Kind == KindHost {
			got = append(got, f.Subject)
		}
	}
	if len(got) != 1 || got[0] != "collect.evil.example" {
		t.Errorf("host findings %v: want the schema's host judged and the caller's expected", got)
	}
}
