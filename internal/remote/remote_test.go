package remote

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/remote/remotefake"
)

func audit(t *testing.T, o Options) *m.Manifest {
	t.Helper()
	o.AllowLoopback = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	man, err := Audit(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return man
}

func kinds(fs []policy.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity >= policy.High && !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	slices.Sort(out)
	return out
}

// TestSurface: both transports and both eras; the benign server offers
// nothing harmful and is still incomplete (surface only); the same server
// with instructions for the model in a description and in its ui:// page
// fails. Nothing is called.
func TestSurface(t *testing.T) {
	cases := []struct {
		name, mode, transport, era string
		fail                       bool
	}{
		{"benign over Streamable HTTP", remotefake.Benign, m.TransportHTTP, "modern", false},
		{"injection over Streamable HTTP", remotefake.Inject, m.TransportHTTP, "modern", true},
		{"benign over HTTP+SSE", remotefake.Benign, m.TransportSSE, "legacy", false},
		{"injection over HTTP+SSE", remotefake.Inject, m.TransportSSE, "legacy", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := remotefake.Start(c.mode)
			defer srv.Close()
			url := srv.HTTPURL()
			if c.transport == m.TransportSSE {
				url = srv.SSEURL()
			}
			man := audit(t, Options{URL: url, Transport: c.transport})
			if man.Target.Ecosystem != m.EcosystemRemote || man.Target.Version != remotefake.Version || man.Outcome.Status != m.StatusOK {
				t.Fatalf("target %+v, outcome %+v", man.Target, man.Outcome)
			}
			if len(man.Tools) != 2 || man.Tools[0].Digest == "" {
				t.Errorf("tools %+v, want two, pinned", man.Tools)
			}
			if !slices.Contains(man.Run.Notes, "opened in the "+c.era+" protocol era") {
				t.Errorf("notes %v, want the %s era", man.Run.Notes, c.era)
			}
			if len(man.Calls) != 1 || man.Calls[0].Name != remotefake.PageURI || man.Calls[0].Outcome != m.CallOK {
				t.Errorf("calls %+v, want the ui:// page read", man.Calls)
			}
			if slices.Contains(srv.Methods(), "tools/call") {
				t.Errorf("a tool was called: %v", srv.Methods())
			}
			res := diff.Judge(man, policy.Policy{FailOn: policy.High})
			if !slices.Contains(res.Incomplete, coverage.SurfaceOnly) {
				t.Errorf("incomplete %v, want surface only", res.Incomplete)
			}
			want := []string(nil)
			verdict := m.VerdictIncomplete
			if c.fail {
				want, verdict = []string{policy.KindMessage, policy.KindTool}, m.VerdictFail
			}
			if diff := cmp.Diff(want, kinds(res.Findings)); diff != "" || res.Verdict != verdict {
				t.Errorf("verdict %s, want %s; findings (-want +got):\n%s", res.Verdict, verdict, diff)
			}
			if c.fail && !slices.ContainsFunc(res.Findings, func(f policy.Finding) bool { return strings.HasPrefix(f.Phase, m.PhaseReadPrefix) }) {
				t.Errorf("the ui:// page's instructions were not found: %+v", res.Findings)
			}
		})
	}
}

// TestSendsNoCredential: every request carries only the protocol's own
// headers: no Authorization, no cookie, nothing the client did not make.
func TestSendsNoCredential(t *testing.T) {
	srv := remotefake.Start(remotefake.Benign)
	defer srv.Close()
	audit(t, Options{URL: srv.HTTPURL(), Calls: []string{"search_docs"}})
	allowed := []string{"Accept", "Accept-Encoding", "Content-Length", "Content-Type", "Mcp-Method", "Mcp-Name",
		"Mcp-Protocol-Version", "Mcp-Session-Id", "User-Agent"}
	for _, r := range srv.Requests() {
		for k := range r.Header {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s %s sent the header %s", r.RPC, r.Path, k)
			}
		}
		if r.RawQuery != "" {
			t.Errorf("%s sent a query %q", r.RPC, r.RawQuery)
		}
	}
}

// TestRemoteCall: only the tool named is called, once; a name the server
// does not offer is a note.
func TestRemoteCall(t *testing.T) {
	srv := remotefake.Start(remotefake.Benign)
	defer srv.Close()
	man := audit(t, Options{URL: srv.HTTPURL(), Calls: []string{"search_docs", "no_such_tool"}})
	calls := 0
	for _, meth := range srv.Methods() {
		if meth == "tools/call" {
			calls++
		}
	}
	if calls != 1 || !srv.Received(`"name":"search_docs"`) {
		t.Errorf("%d calls, want search_docs once: %v", calls, srv.Methods())
	}
	if !slices.ContainsFunc(man.Run.Notes, func(n string) bool { return strings.Contains(n, "no_such_tool") }) {
		t.Errorf("notes %v, want the unknown tool named", man.Run.Notes)
	}
	if man.Coverage.Tools.Called != 1 || man.Coverage.Tools.OK != 1 {
		t.Errorf("coverage %+v", man.Coverage.Tools)
	}
}

// TestUnreachable: a server that is not there gives a manifest saying why,
// incomplete, and no error.
func TestUnreachable(t *testing.T) {
	srv := remotefake.Start(remotefake.Benign)
	url := srv.HTTPURL()
	srv.Close()
	man := audit(t, Options{URL: url, Timeout: 5 * time.Second, CallTimeout: 2 * time.Second})
	if man.Outcome.Status != m.StatusNoHandshake || !strings.Contains(man.Outcome.Reason, "without credentials") {
		t.Errorf("outcome %+v", man.Outcome)
	}
}

// TestHTTPErrorIsAnAnswer: a server that wants a credential (401) is not
// audited past its opening, and says so.
func TestHTTPErrorIsAnAnswer(t *testing.T) {
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "unauthorized", http.StatusUnauthorized) })
	man := audit(t, Options{URL: srv + "/mcp"})
	if man.Outcome.Status != m.StatusNoHandshake || !strings.Contains(man.Outcome.Reason, "401") {
		t.Errorf("outcome %+v", man.Outcome)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{URL: "ftp://x.example/"}, {URL: "https://x.example/mcp?key=1"}, {URL: "https://u:p@x.example/"},
		{URL: "https://x.example/", Transport: "ws"}} {
		if _, err := Audit(context.Background(), o); !errors.Is(err, ErrRefused) {
			t.Errorf("%+v: err %v, want refused", o, err)
		}
	}
}
