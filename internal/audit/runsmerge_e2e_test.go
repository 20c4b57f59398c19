package audit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// profileSig is the fixture's signature of a client environment: TERM
// set, LANG set (1 or 0).
func profileSig(env []string) string {
	sig := []byte("00")
	for _, kv := range env {
		if strings.HasPrefix(kv, "TERM=") {
			sig[0] = '1'
		}
		if strings.HasPrefix(kv, "LANG=") {
			sig[1] = '1'
		}
	}
	return string(sig)
}

// TestRunsKeepLaterOffer: under --runs 2 the first run's tools were all
// the manifest kept, so a description that carries instructions only in
// the second run (here: under the second run's client profile) was lost.
// The control shows the same description in every run.
func TestRunsKeepLaterOffer(t *testing.T) {
	t.Parallel()
	first := profileSig(audit.ClientEnvFor(testSecret, "fixture-server@1.0.0", 0))
	for _, tc := range []struct{ name, mode string }{
		{"control-always", "surface=description"},
		{"second-run-only", "desc-rug-sig=" + first},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			res, err := audit.RunStable(ctx, deps(t), harnessOptions(audit.Options{Target: fixture, Args: []string{tc.mode},
				Calls: audit.CallsNone, Timing: audit.TimingOptions{IdleQuiet: time.Second, IdleMin: 500 * time.Millisecond}}), 2)
			if err != nil {
				t.Fatal(err)
			}
			man := res.Manifest
			if man.Outcome.Status != m.StatusOK {
				t.Fatalf("outcome %+v", man.Outcome)
			}
			fs := findings(man)
			var high bool
			for _, f := range fs {
				high = high || f.Kind == policy.KindTool && f.Severity >= policy.High && strings.Contains(f.Subject, "echo")
			}
			if !high {
				t.Errorf("no high finding about echo's description under --runs 2 (first run's profile %s, %s); findings:", first, man.Run.ClientEnv)
				logFindings(t, fs)
			}
		})
	}
}
