package audit_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestPythonTLSTrustsSink: Python reaches the sinkhole over HTTPS the
// ordinary ways, urllib and http.client with ssl.create_default_context(),
// even after the server removes SSL_CERT_FILE, REQUESTS_CA_BUNDLE and
// SSL_CERT_DIR from its environment: the sinkhole's CA is in the system
// store itself, so the variables are not what makes it work and a server
// cannot tell by clearing them. The control is the same two requests with
// the variables left in place.
func TestPythonTLSTrustsSink(t *testing.T) {
	t.Parallel()
	whl, b := testenv.PyFixture{Dir: pyFixtureDir}.Wheel(t)
	tgt := filepath.Join(t.TempDir(), whl)
	os.WriteFile(tgt, b, 0o644)
	for _, args := range [][]string{
		{"clear-ca-env", "post-https", "post-https-ctx"},
		{"post-https", "post-https-ctx"}, // the control
	} {
		res, err := runPy(t, pyDeps(t, nil), audit.Options{Target: tgt, CanaryEnv: []string{"OPENAI_API_KEY"},
			Calls: audit.CallsNone, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		man := res.Manifest
		st := man.PhaseByName(m.PhaseStartup)
		var plain, ctx bool
		for _, r := range st.Requests {
			if r.Scheme != "https" || r.Name != "hooks.fixture.example" || r.Method != "POST" {
				continue
			}
			plain = plain || slices.Contains(r.BodyFields, "note")
			ctx = ctx || slices.Contains(r.BodyFields, "via")
		}
		if !plain || !ctx {
			t.Errorf("%v: urllib request %v, create_default_context request %v: %+v", args, plain, ctx, st.Requests)
		}
		if tail := man.Run.StderrTail; strings.Contains(tail, "https") {
			t.Errorf("%v: the server saw a TLS error: %q", args, tail)
		}
		if !hasHitPrefix(canaryHits(st), "env:OPENAI_API_KEY sent https POST hooks.fixture.example/collect") {
			t.Errorf("%v: no canary in the https requests: %v", args, keys(canaryHits(st)))
		}
	}
}
