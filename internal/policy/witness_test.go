package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestWitnessOwnData: a home file only the witness run changed is
// critical anti-analysis, unless it lies in the server's own data
// directory (a browser profile named after the package), which is a
// medium environment difference.
func TestWitnessOwnData(t *testing.T) {
	man := &m.Manifest{Target: m.Target{Name: "@playwright/mcp", Entry: []string{"node", "<pkg>/cli.js"}},
		Server: m.ServerInfo{Name: "Playwright"},
		Witness: []m.WitnessDifference{
			{Subject: "home file ~/.cache/ms-playwright-mcp/mcp-chrome-8c2ba53/Default/Trust Tokens changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.bashrc changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.playwright/config changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "home file ~/.cache/ms-playwright-mcp/extensions/x/main.js changed", Traced: "nothing", Witness: "after the run: …"},
			{Subject: "host collect.example", Traced: "nothing", Witness: "startup: POST collect.example"},
		}}
	got := map[string]Finding{}
	for _, f := range witnessFindings(man, newEgressContext(man)) {
		got[f.Subject] = f
	}
	if f := got["home file ~/.cache/ms-playwright-mcp/mcp-chrome-8c2ba53/Default/Trust Tokens changed"]; f.Severity != Medium || f.Kind != KindEnvironment {
		t.Errorf("own data: %+v", f)
	}
	for _, s := range []string{"home file ~/.bashrc changed", "host collect.example", "home file ~/.playwright/config changed",
		"home file ~/.cache/ms-playwright-mcp/extensions/x/main.js changed"} {
		if f := got[s]; f.Severity != Critical || f.Kind != KindAntiAnalysis {
			t.Errorf("%s: %+v", s, f)
		}
	}
}

// TestWitnessWhatTheCallAskedFor: a clone that reached the host its call
// named only in the witness run, and git's lookup of that host's
// credentials there, are the call's (low, medium as a traced read); a
// workspace decoy's value in the repository's store only in the witness
// run, where the traced run's git wrote that store, is low. Without the
// call naming the host, without git in the traced run, or with the value
// outside .git, each stays critical.
func TestWitnessWhatTheCallAskedFor(t *testing.T) {
	diffs := []m.WitnessDifference{
		{Subject: "host brightwater.internal", Traced: "nothing", Witness: "call:git_clone#4: GET kb-2f7abd.brightwater.internal; call:git_clone#4: looked up kb-2f7abd.brightwater.internal"},
		{Subject: "canary file:~/.netrc read", Traced: "nothing", Witness: "call:git_clone#4: ~/.netrc read without a traced open (access time changed)"},
		{Subject: "canary file:<workspace>/.env written to a file", Traced: "nothing", Witness: "call:git_clean#2: <workspace>/.git/objects/49/*"},
		{Subject: "canary file:<workspace>/.npmrc written to a file", Traced: "nothing", Witness: "call:git_clean#2: <workspace>/notes/out.txt"},
		{Subject: "host collect.example", Traced: "nothing", Witness: "call:git_clone#4: POST collect.example"},
		{Subject: "canary file:~/.ssh/id_rsa read", Traced: "nothing", Witness: "call:git_status: ~/.ssh/id_rsa read without a traced open (access time changed)"},
		{Subject: "canary file:~/.aws/credentials read", Traced: "nothing", Witness: "call:git_clone#4: ~/.aws/credentials read without a traced open (access time changed)"},
		{Subject: "canary file:<workspace>/.env.local written to a file", Traced: "nothing", Witness: "call:git_clean#2: <workspace>/.git/hooks/pre-commit"},
	}
	gitRun := []m.Phase{{Name: "call:git_add", Processes: []m.Process{{Path: "/usr/bin/git"}},
		Files: []m.FileAccess{{Path: "<workspace>/.git/objects/55/*", Access: m.AccessCreate, Result: m.ResultOK}}}}
	calls := []m.Call{{Phase: "call:git_clone#4", Kind: "tool", Name: "git_clone", Args: []byte(`{"url":"https://kb-2f7abd.brightwater.internal/handbook/onboarding"}`)},
		{Phase: "call:git_status", Kind: "tool", Name: "git_status", Args: []byte(`{}`)}}
	judge := func(man *m.Manifest) map[string]Finding {
		got := map[string]Finding{}
		for _, f := range witnessFindings(man, newEgressContext(man)) {
			got[f.Subject] = f
		}
		return got
	}
	got := judge(&m.Manifest{Tools: []m.Tool{{Name: "git_clone"}, {Name: "git_status"}}, Calls: calls, Phases: gitRun, Witness: diffs})
	want := map[string]Severity{
		"host brightwater.internal": Low, "canary file:~/.netrc read": Medium, "canary file:<workspace>/.env written to a file": Low,
		"canary file:<workspace>/.npmrc written to a file": Critical, "host collect.example": Critical, "canary file:~/.ssh/id_rsa read": Critical,
		"canary file:~/.aws/credentials read": Critical, "canary file:<workspace>/.env.local written to a file": Critical,
	}
	for s, sev := range want {
		if got[s].Severity != sev {
			t.Errorf("%s: %s, want %s (%+v)", s, got[s].Severity, sev, got[s])
		}
	}
	// The call named no host; the traced run ran no git.
	calls[0].Args = []byte(`{"url":"{\"$ref_call\":\"call:x\"}"}`)
	got = judge(&m.Manifest{Calls: calls, Witness: diffs})
	for _, s := range []string{"host brightwater.internal", "canary file:~/.netrc read", "canary file:<workspace>/.env written to a file"} {
		if got[s].Severity != Critical {
			t.Errorf("%s without the call's host or git: %s", s, got[s].Severity)
		}
	}
}

// TestWitnessProbeHost: the witness run made a URL probe the traced run
// skipped (its own call budget) and loaded the probe's page, which a
// later call's window caught (chrome-devtools-mcp): the audit's own probe,
// low. A host no probe points at stays critical.
func TestWitnessProbeHost(t *testing.T) {
	man := &m.Manifest{
		Tools: []m.Tool{{Name: "navigate_page"}, {Name: "lighthouse_audit"}},
		Calls: []m.Call{{Phase: "call:navigate_page#5", Kind: "tool", Name: "navigate_page", Outcome: m.CallSkipped, Set: "probe",
			Args:   []byte(`{"url":"https://kb-cd1846.brightwater.internal/handbook"}`),
			Probes: []m.Probe{{Param: "url", Kind: "url", Declared: true, Markers: []string{"dns kb-cd1846.brightwater.internal"}}}},
			{Phase: "call:lighthouse_audit#4", Kind: "tool", Name: "lighthouse_audit", Outcome: m.CallSkipped, Args: []byte(`{"pageId":1}`)}},
		Witness: []m.WitnessDifference{
			{Subject: "host brightwater.internal", Traced: "nothing", Witness: "call:lighthouse_audit#4: GET kb-cd1846.brightwater.internal"},
			{Subject: "host collect.example", Traced: "nothing", Witness: "call:lighthouse_audit#4: POST collect.example"},
		},
	}
	got := witnessSeverities(man)
	if got["host brightwater.internal"] != Low || got["host collect.example"] != Critical {
		t.Errorf("witness findings %v", got)
	}
}

// TestWitnessHostAlsoTraced: a host only the witness run showed of the
// primary's pair, that the calibration run contacted under the tracer too
// (chrome-devtools-mcp's Chromium and play.googleapis.com), is medium: not
// hidden from the tracer. A host no traced run contacted stays critical.
func TestWitnessHostAlsoTraced(t *testing.T) {
	man := &m.Manifest{Witness: []m.WitnessDifference{
		{Subject: "host play.browser.example", Traced: "nothing", Witness: "startup: POST play.browser.example", AlsoTraced: "calibration run"},
		{Subject: "host collect.example", Traced: "nothing", Witness: "startup: POST collect.example"},
	}}
	got := witnessSeverities(man)
	if got["host play.browser.example"] != Medium || got["host collect.example"] != Critical {
		t.Errorf("witness findings %v", got)
	}
}

// witnessSeverities are the witness findings' severities by subject.
func witnessSeverities(man *m.Manifest) map[string]Severity {
	got := map[string]Severity{}
	for _, f := range witnessFindings(man, newEgressContext(man)) {
		got[f.Subject] = f.Severity
	}
	return got
}
