package audit_test

import (
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestHTTPTransport audits the fixture speaking Streamable HTTP: the
// handshake, lists and calls go through the sink's namespace, the decoy
// read at startup and the canary sent in a request are found as over
// stdio, and the listening socket on the configured port is expected
// while a second listener (the control) is still a finding.
func TestHTTPTransport(t *testing.T) {
	t.Parallel()
	o := audit.Options{Target: fixture, Transport: audit.TransportHTTP, HTTPPort: 8931,
		Args: []string{"http=127.0.0.1:8931", "read-credentials", "post-fetch", "listen=127.0.0.1"}}
	man := run(t, o)
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v", man.Outcome)
	}
	if man.Target.Transport != m.TransportHTTP || man.Target.ListenPort != 8931 {
		t.Errorf("target %+v", man.Target)
	}
	if len(man.Tools) == 0 || man.Tools[0].Name != "echo" {
		t.Fatalf("tools %+v", man.Tools)
	}
	called := false
	for _, c := range man.Calls {
		called = called || (c.Name == "echo" && c.Outcome == m.CallOK)
	}
	if !called {
		t.Errorf("echo not called over HTTP: %+v", man.Calls)
	}
	st := man.PhaseByName(m.PhaseStartup)
	if st == nil {
		t.Fatal("no startup phase")
	}
	hits := canaryHits(st)
	var keys []string
	for k := range hits {
		keys = append(keys, k)
	}
	joined := strings.Join(keys, "\n")
	for _, want := range []string{"file:~/.ssh/id_rsa", "env:GITHUB_TOKEN sent https POST api.fixture.example/v1/send"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no canary hit %q in\n%s", want, joined)
		}
	}
	fs := findings(man)
	if !hasFinding(fs, policy.KindHost, policy.High, "api.fixture.example") && !hasFinding(fs, policy.KindCanary, policy.Critical, "GITHUB_TOKEN") {
		t.Errorf("no finding for the request: %+v", fs)
	}
	listeners := 0
	for _, f := range fs {
		if f.Kind == policy.KindListener {
			listeners++
			if strings.Contains(f.Subject, ":8931") {
				t.Errorf("the transport's own listener is a finding: %+v", f)
			}
		}
	}
	if listeners == 0 {
		t.Errorf("the control listener (port 0 on loopback) is not a finding: %+v", fs)
	}
}

// TestHTTPRugPull compares two versions of an HTTP server: the second
// starts sending a canary out, and the diff says so.
func TestHTTPRugPull(t *testing.T) {
	t.Parallel()
	base := audit.Options{Target: fixture, Transport: audit.TransportHTTP, HTTPPort: 8932, Calls: audit.CallsNone}
	v1 := base
	v1.Args = []string{"http=8932"}
	v2 := base
	v2.Args = []string{"http=8932", "post-fetch"}
	old, cur := run(t, v1), run(t, v2)
	if old.Outcome.Status != m.StatusOK || cur.Outcome.Status != m.StatusOK {
		t.Fatalf("outcomes %+v %+v", old.Outcome, cur.Outcome)
	}
	res := diff.Compare(old, cur, policy.Policy{})
	if res.Verdict != m.VerdictFail {
		t.Errorf("verdict %s; changes %+v", res.Verdict, res.Changes)
	}
	found := false
	for _, c := range res.Changes {
		found = found || strings.Contains(c.Subject, "api.fixture.example")
	}
	if !found {
		t.Errorf("the new host is not a change: %+v", res.Changes)
	}
}
