package batch

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestResultsGolden renders RESULTS.md for a batch with every kind of
// finding, a crash, a failure to audit and a clean server.
func TestResultsGolden(t *testing.T) {
	done := func(server, version, status string, fs ...policy.Finding) entry {
		return entry{
			Record: Record{Server: server, Target: "npm:" + server + "@" + version, Name: server, Version: version,
				Status: StatusDone, Outcome: status, Verdict: "pass", Counts: policy.Counts(fs), Findings: fs},
			man: &m.Manifest{Outcome: m.Outcome{Status: status}},
		}
	}
	f := func(sev policy.Severity, kind, phase, subject, evidence string) policy.Finding {
		return policy.Finding{Severity: sev, Kind: kind, Phase: phase, Subject: subject, Summary: kind + " summary", Evidence: evidence}
	}
	quiet := done("quiet", "1.0.0", m.StatusOK, f(policy.Low, policy.KindHost, m.PhaseInstall, "registry.example", ""))
	quiet.man.Tools = []m.Tool{{Name: "get"}, {Name: "put"}}
	quiet.man.Calls = []m.Call{{Kind: "tool", Name: "get", Outcome: m.CallOK},
		{Kind: "tool", Name: "put", Outcome: m.CallError, Detail: "connect ECONNREFUSED 192.0.2.7:5432"}}
	crashed := done("crasher", "0.1.0", m.StatusCrashed)
	crashed.Reason = "the server exited on its own (exit code 1): Error: missing API_KEY"
	es := []entry{
		done("busy", "2.0.0", m.StatusOK,
			f(policy.Medium, policy.KindHost, m.PhaseStartup, "telemetry.example", "https POST telemetry.example/v1"),
			f(policy.Medium, policy.KindHost, "call:fetch", "api.example", ""),
			f(policy.Medium, policy.KindHost, "call:a", "many.example", ""),
			f(policy.Medium, policy.KindHost, "call:b", "many.example", ""),
			f(policy.Medium, policy.KindHost, "call:c", "many.example", ""),
			f(policy.Medium, policy.KindHost, "call:d", "many.example", ""),
			f(policy.High, policy.KindCredential, "call:fetch", "env:API_KEY sent", "https POST api.example/v1/x"),
			f(policy.High, policy.KindSensitive, m.PhaseIdle, "~/.ssh/id_rsa", ""),
			f(policy.High, policy.KindAIConfig, m.PhaseStartup, "~/.cursor/mcp.json", ""),
			f(policy.High, policy.KindPersistence, m.PhaseStartup, "~/.bashrc", ""),
			f(policy.Critical, policy.KindCanary, m.PhaseStartup, "~/.aws/credentials", ""),
			f(policy.Medium, policy.KindProcess, "call:run", "/bin/ls", "/bin/ls -la"),
			f(policy.High, policy.KindShell, m.PhaseInstall, "/bin/sh", "/bin/sh -c curl"),
			f(policy.Medium, policy.KindInstallScript, m.PhaseInstall, "postinstall", "node install.js"),
			f(policy.High, policy.KindTool, m.PhaseStartup, "fetch", "ignore previous instructions")),
		quiet,
		done("caller", "1.0.0", m.StatusOK, f(policy.Medium, policy.KindHost, "call:get", "only-on-call.example", "")),
		done("given", "1.0.0", m.StatusOK, f(policy.High, policy.KindCredential, m.PhaseStartup, "env:TOKEN sent", "dns token.example")),
		done("a-dotenv", "1.0.0", m.StatusOK, f(policy.Medium, policy.KindCanary, m.PhaseStartup, "file:<workspace>/.env file-read", "<workspace>/.env")),
		crashed,
		{Record: Record{Server: "broken|*name*", Target: "npm:broken", Status: StatusFailed, Reason: "fetching: <b>404</b>"}},
	}
	got := results(es, "2026-11-29T19:00:00Z")
	golden := filepath.Join("testdata", "results.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("RESULTS.md (-want +got):\n%s", diff)
	}
}
